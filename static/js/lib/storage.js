// localStorage that never throws (private browsing, storage full or disabled).

export function load(key, fallback = null) {
  try {
    const raw = window.localStorage.getItem(key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

export function save(key, value) {
  try {
    window.localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    return false;
  }
}

export function remove(key) {
  try {
    window.localStorage.removeItem(key);
  } catch {
    // nothing to do
  }
}

// The nickname last used in this browser, offered again on the next form.
export const NICKNAME_KEY = "boggle.nickname";

# Debian packages for bin/test and bin/start --production: source it, then
#   ensure_debian_packages PACKAGE...
# Installs the missing ones with apt-get when run as root (failing if apt-get fails);
# otherwise warns and goes on.
# Services a package would start (nginx on port 80) are not started: bin/start runs nginx
# itself, under its own configuration (policy-rc.d, as Debian's container images do).

ensure_debian_packages() {
    local missing=() package
    for package in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$package")
        fi
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
        echo "warning: missing Debian packages (need root and apt-get): ${missing[*]}" >&2
        return 0
    fi
    echo "Installing Debian packages: ${missing[*]}"
    local policy=/usr/sbin/policy-rc.d placed=0
    if [[ ! -e "$policy" ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && placed=1
    fi
    export DEBIAN_FRONTEND=noninteractive
    local status=0
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null || status=$?
    [[ "$placed" == 1 ]] && rm -f "$policy"
    return "$status"
}

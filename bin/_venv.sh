# Sourced by bin/start and bin/test (not run directly): a virtualenv at <repo>/.venv.
#
# ensure_venv REQUIREMENTS_FILE
#   Creates .venv with Python >= 3.11 if missing, installs REQUIREMENTS_FILE into it unless
#   a stamp shows those exact requirements are already installed, builds the solver's C core
#   (python -m solver.native build) and puts .venv/bin first on PATH. Precondition: the
#   current directory is the repository root.

MIN_PYTHON="3.11"

find_python() {
    local candidate
    for candidate in python3.11 python3 python; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

# Hash the file and every file it pulls in with `-r`, so a change to either reinstalls.
requirements_hash() {
    local file="$1" included
    {
        cat "$file"
        for included in $(sed -n 's/^[[:space:]]*-r[[:space:]]*//p' "$file"); do
            cat "$(dirname "$file")/$included"
        done
        .venv/bin/python --version 2>&1
    } | sha256sum | cut -d' ' -f1
}

ensure_venv() {
    local requirements="$1" python stamp wanted
    if [[ ! -x .venv/bin/python ]]; then
        if ! python="$(find_python)"; then
            echo "error: Python >= $MIN_PYTHON is needed (python3.11 or python3)." >&2
            return 1
        fi
        echo "Creating .venv with $python"
        "$python" -m venv .venv
    fi
    stamp=".venv/.installed-$(basename "$requirements").sha256"
    wanted="$(requirements_hash "$requirements")"
    if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
        echo "Installing $requirements into .venv"
        .venv/bin/python -m pip install --disable-pip-version-check --quiet -r "$requirements"
        echo "$wanted" >"$stamp"
    fi
    # The solver's C core: optional (the solver falls back to pure Python), so a failure only
    # warns. Quick when up to date: it compares a digest of the source, nothing compiles.
    if ! .venv/bin/python -m solver.native build --quiet; then
        echo "warning: the solver's C core did not build; the solver runs in pure Python." >&2
    fi
    export PATH="$PWD/.venv/bin:$PATH"
    export VIRTUAL_ENV="$PWD/.venv"
}

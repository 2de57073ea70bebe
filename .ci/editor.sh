#!/usr/bin/env bash
# A real editor against `mcpdecl lsp`: Debian's Neovim, headless, drives the
# language server through its built-in LSP client (lsp/testdata/nvim.lua)
# on an example with a typo, and TestNeovim checks what it saw. Helix is
# not packaged by Debian, so Neovim is the one editor run here.
set -euo pipefail
cd "$(dirname "$0")/.."

# ensure_neovim installs Debian's Neovim when it is missing.
ensure_neovim() {
  if ! command -v nvim >/dev/null; then
    echo "installing Neovim (Debian's package)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends neovim >/dev/null 2>&1 ||
      { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends neovim >/dev/null 2>&1; } ||
      { echo "FAIL: could not install Neovim (apt-get install neovim)" >&2; return 1; }
  fi
  nvim --version | head -1
}
ensure_neovim

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mcpdecl" ./cmd/mcpdecl
MCPDECL_LSP_BIN="$work/mcpdecl" go test -count=1 -run '^TestNeovim$' -v ./lsp/

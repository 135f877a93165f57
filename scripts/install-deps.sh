#!/usr/bin/env bash
# Installs the Debian -dev packages the build links against, when any is missing.
# Uses sudo when not root. Safe to run again: it does nothing when everything is there.
set -euo pipefail

packages=(pkg-config libpng-dev libjpeg62-turbo-dev libturbojpeg0-dev libwebp-dev libgif-dev libcurl4-openssl-dev libssl-dev)
# The PNG reader inflates image data with zlib itself.
packages+=(zlib1g-dev)
# Transformers: pixman rotates by arbitrary angles.
packages+=(libpixman-1-dev)
# Tests only: openssl makes the HTTPS tests' certificates, nghttpd is their HTTP/2 server (the tests gzip bodies with zlib).
packages+=(openssl nghttp2-server)
# Colour management: Little CMS 2 (WebImageColorManagement); jpgicc is icc-bench's peer.
packages+=(liblcms2-dev liblcms2-utils)
# AVIF, HEIF and JPEG XL coders; the tests compare with avifenc/avifdec, heif-enc/heif-convert, cjxl/djxl.
packages+=(libavif-dev libheif-dev libjxl-dev libavif-bin libheif-examples libjxl-tools)
# SVG coder: librsvg and cairo; the tests compare with rsvg-convert.
packages+=(librsvg2-dev librsvg2-bin)
# TIFF coder: libtiff (the BMP and ICO coders are Swift).
packages+=(libtiff-dev)
# CI only: scripts/checks/browser-check loads the image server's demo page and the docs site in headless Chromium.
if [ "${CI:-}" = true ]; then packages+=(chromium); fi
# The Redis cache tier: hiredis to build, redis-server for its tests, redis-tools (redis-cli, redis-benchmark).
packages+=(libhiredis-dev redis-server redis-tools)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing packages: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2

#!/usr/bin/env bash
# Debian packages the project needs: MariaDB (private instance), poppler (PDF checks and
# previews), zbar (barcode checks), the default font stack of PDF documents (Noto core: Latin, Greek,
# Cyrillic, Arabic, Hebrew, Devanagari, Thai; Noto CJK; DejaVu: symbols), the embedded faces of the 14
# standard PDF fonts in PDF/A documents (URW base 35) and their sRGB output intent (icc-profiles-free),
# the PDF/A validator of the tests (../shared/pdfa/preflight: PDFBox Preflight on a headless JRE), the
# e-invoice validator of the tests (../shared/einvoice/validate: Saxon HE and xmllint), ZXing (GS1 barcode checks),
# openssl (dev certificate), HAProxy (`make cluster` and the cluster test), Chromium (the studio's browser
# tests, driven by playwright-core: npm's own browser download is not reachable here).
# Installs what is missing when root; otherwise says what to install.
set -euo pipefail
packages=(mariadb-server mariadb-client poppler-utils zbar-tools zxing-cpp-tools dmtx-utils fonts-dejavu-core fonts-noto-core fonts-noto-cjk fonts-urw-base35 icc-profiles-free default-jre-headless libpdfbox2-java libactivation-java libjaxb-api-java libsaxonhe-java libxml2-utils openssl qpdf ca-certificates haproxy chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "missing Debian packages: ${missing[*]}" >&2
  echo "install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# The image's build step (deploy/Dockerfile), in the build context's root: a release `familysync`
# with the Swift runtime linked in (the runtime image has no Swift), copied to $1.
set -euo pipefail
destination=${1:?usage: deploy/image/build.sh DESTINATION-DIRECTORY}
# The SDK's URLSessionTransport brings FoundationNetworking, whose static archive needs libcurl
# at link time (the swift image has it; a bare Debian machine gets Debian's package).
if ! dpkg-query -W -f='${Status}' libcurl4-openssl-dev 2>/dev/null | grep -q "install ok installed"; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libcurl4-openssl-dev >/dev/null
fi
swift build -c release --product familysync --static-swift-stdlib -Xlinker -lcurl
install -D -m 0755 "$(swift build -c release --static-swift-stdlib -Xlinker -lcurl --show-bin-path)/familysync" "$destination/familysync"

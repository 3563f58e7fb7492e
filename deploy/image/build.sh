#!/usr/bin/env bash
# The image's build step (deploy/Dockerfile), in the build context's root: a release `familysync`
# with the Swift runtime linked in (the runtime image has no Swift), copied to $1.
set -euo pipefail
destination=${1:?usage: deploy/image/build.sh DESTINATION-DIRECTORY}
swift build -c release --product familysync --static-swift-stdlib
install -D -m 0755 "$(swift build -c release --show-bin-path)/familysync" "$destination/familysync"

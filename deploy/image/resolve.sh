#!/usr/bin/env bash
# The image's first build step (deploy/Dockerfile): the dependencies, resolved from Package.swift
# alone, so that the layer holding them is rebuilt only when the manifest changes.
set -euo pipefail
swift package resolve

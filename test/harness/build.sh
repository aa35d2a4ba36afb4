#!/usr/bin/env bash
# Builds the test control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok), Helm
# (for the chart's tests) and a real Coder server (coder, with the echo-template builder) from the Go module proxy into
# $HOME/.cache/coder-k8s/<component>/<version>/, skipping what is there. `build.sh coder` builds one part.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/versions.env"
cache=${CODER_K8S_CACHE:-$HOME/.cache/coder-k8s}
export GOTOOLCHAIN=local CGO_ENABLED=0

log() { printf '[harness:build] %s\n' "$*" >&2; }

# built <dir> <binary...>: true when every binary exists and reports the expected version.
built() {
  local dir=$1; shift
  for b in "$@"; do [ -x "$dir/$b" ] || return 1; done
  [ -f "$dir/.complete" ]
}

build_kube() {
  local out=$cache/kubernetes/$KUBERNETES_VERSION
  if built "$out" kube-apiserver kube-controller-manager kube-scheduler; then
    log "kubernetes $KUBERNETES_VERSION: cached in $out"; return
  fi
  log "kubernetes $KUBERNETES_VERSION: building into $out (cold: ~15-25 min)"
  mkdir -p "$out"
  local minor=${KUBERNETES_VERSION#v1.}; minor=${minor%%.*}
  local ldf="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf="$ldf -X $p.gitVersion=$KUBERNETES_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor"
    ldf="$ldf -X $p.gitCommit=module -X $p.gitTreeState=clean -X $p.buildDate=2026-01-01T00:00:00Z"
  done
  (cd "$here/go/kube" && go build -trimpath -tags selinux,notest,grpcnotrace -ldflags "$ldf" -o "$out/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler)
  "$out/kube-apiserver" --version | grep -q "$KUBERNETES_VERSION"
  touch "$out/.complete"
}

build_etcd() {
  local out=$cache/etcd/$ETCD_VERSION
  if built "$out" etcd; then log "etcd $ETCD_VERSION: cached in $out"; return; fi
  log "etcd $ETCD_VERSION: building into $out"
  mkdir -p "$out"
  (cd "$here/go/etcd" && go build -trimpath -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3)
  "$out/etcd" --version | grep -q "${ETCD_VERSION#v}"
  touch "$out/.complete"
}

build_kwok() {
  local out=$cache/kwok/$KWOK_VERSION
  if built "$out" kwok; then log "kwok $KWOK_VERSION: cached in $out"; return; fi
  log "kwok $KWOK_VERSION: building into $out"
  mkdir -p "$out/stages"
  (cd "$here/go/kwok" && go build -trimpath -ldflags "-s -w" -o "$out/kwok" sigs.k8s.io/kwok/cmd/kwok)
  # kwok needs Stage objects; the module ships the standard "fast" ones.
  local dir
  dir=$(cd "$here/go/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  cp "$dir/kustomize/stage/node/fast/node-initialize.yaml" \
     "$dir/kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml" \
     "$dir/kustomize/stage/pod/fast/pod-ready.yaml" \
     "$dir/kustomize/stage/pod/fast/pod-complete.yaml" \
     "$dir/kustomize/stage/pod/fast/pod-delete.yaml" "$out/stages/"
  chmod u+w "$out/stages/"*
  touch "$out/.complete"
}

# Helm is one `go install` of its released module: its own go.mod and go.sum pin every dependency. The
# version string is set as Helm's Makefile sets it, so `helm version` names the release.
build_helm() {
  local out=$cache/helm/$HELM_VERSION
  if built "$out" helm; then log "helm $HELM_VERSION: cached in $out"; return; fi
  log "helm $HELM_VERSION: building into $out (cold: ~5-10 min)"
  mkdir -p "$out"
  GOBIN=$out go install -trimpath -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$HELM_VERSION" \
    "helm.sh/helm/v4/cmd/helm@$HELM_VERSION"
  "$out/helm" version --short | grep -q "^$HELM_VERSION"
  touch "$out/.complete"
}

# Coder's own module is the main module of this build (its replace directives must apply), so it is
# built from a writable copy of the module, with our echo-template builder dropped into that copy. The
# enterprise command carries the whole API (licensed features answer 403 without a license); it is
# Coder's source under Coder's licenses, built for local tests only and never shipped. No `embed` tag:
# no web UI.
build_coder() {
  local v
  for v in $CODER_VERSIONS; do build_coder_version "$v"; done
}

# The writable copy of Coder's module being built, removed when the script ends however it ends (a RETURN
# trap would outlive the function and run again, after `src` is gone, at the next function's return).
coder_src=''
trap '[ -z "$coder_src" ] || rm -rf "$coder_src"' EXIT

# build_coder_version <version>: coder of that release; the echo-template builder only with CODER_VERSION.
build_coder_version() {
  local version=$1 out=$cache/coder/$1
  local want=(coder)
  [ "$version" = "$CODER_VERSION" ] && want+=(coder-echo-template)
  if built "$out" "${want[@]}"; then log "coder $version: cached in $out"; return; fi
  log "coder $version: building into $out (cold: ~10-15 min)"
  local dir src
  dir=$(cd "$here/go/coder-echo-template" && go mod download -json "github.com/coder/coder/v2@$version" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
  [ -d "$dir" ] || { log "coder $version: the module proxy did not give github.com/coder/coder/v2@$version"; exit 1; }
  mkdir -p "$cache/coder"
  src=$(mktemp -d "$cache/coder/src-XXXXXX")
  coder_src=$src
  cp -r "$dir/." "$src/" && chmod -R u+w "$src"
  mkdir -p "$out"
  (cd "$src" && go build -trimpath -ldflags "-s -w -X github.com/coder/coder/v2/buildinfo.tag=${version#v}" \
    -o "$out/coder" ./enterprise/cmd/coder)
  if [ "$version" = "$CODER_VERSION" ]; then
    mkdir -p "$src/cmd/coder-echo-template"
    cp "$here/go/coder-echo-template/main.go" "$src/cmd/coder-echo-template/"
    (cd "$src" && go build -trimpath -ldflags "-s -w" -o "$out/coder-echo-template" ./cmd/coder-echo-template)
  fi
  "$out/coder" --version | grep -q "${version}"
  touch "$out/.complete"
  rm -rf "$src"
  coder_src=''
}

# Coder's own API description and database schema of each release the operator supports: the tests
# check the Coder API subset and the operator-access bootstrap against them. Only module zips are
# fetched (no build); the files are copied out so that tests do not depend on the module cache's layout.
build_coder_sources() {
  local v out dir
  for v in $CODER_SOURCE_VERSIONS; do
    out=$cache/coder-sources/$v
    if [ -f "$out/.complete" ] && [ -d "$out/migrations" ]; then continue; fi
    dir=$(cd "$here/go/coder-echo-template" && go mod download -json "github.com/coder/coder/v2@$v" |
      sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
    [ -d "$dir" ] || { log "coder sources $v: the module proxy did not give github.com/coder/coder/v2@$v"; exit 1; }
    mkdir -p "$out" && rm -f "$out/.complete"
    cp "$dir/coderd/apidoc/swagger.json" "$dir/coderd/database/dump.sql" "$out/"
    rm -rf "$out/migrations" && mkdir "$out/migrations"
    cp "$dir/coderd/database/migrations/"*.up.sql "$out/migrations/"
    chmod -R u+w "$out/"
    touch "$out/.complete"
  done
  log "coder sources ($CODER_SOURCE_VERSIONS): in $cache/coder-sources"
}

# The Gateway API's standard CRDs of GATEWAY_API_VERSION (module zip only, no build): the tests that expose a
# control plane through an HTTPRoute install them, as a cluster admin would.
build_gateway_api() {
  local out=$cache/gateway-api/$GATEWAY_API_VERSION dir
  if [ -f "$out/.complete" ]; then log "gateway-api $GATEWAY_API_VERSION: cached in $out"; return; fi
  dir=$(cd "$here/go/coder-echo-template" && go mod download -json "sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
  [ -d "$dir" ] || { log "gateway-api $GATEWAY_API_VERSION: the module proxy did not give sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION"; exit 1; }
  mkdir -p "$out" && rm -f "$out/.complete"
  cp "$dir/config/crd/standard/"*.yaml "$out/"
  chmod -R u+w "$out/"
  touch "$out/.complete"
  log "gateway-api $GATEWAY_API_VERSION: CRDs in $out"
}

want=${*:-etcd kube kwok helm coder coder_sources gateway_api}
for c in $want; do "build_$c"; done
log "done"

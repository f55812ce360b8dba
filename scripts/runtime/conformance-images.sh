# The images of the upstream e2e [NodeConformance] specs, built offline and pushed to the loopback
# registry, plus the --kube-test-repo-list file that points e2e.test at them. Sourced by
# scripts/test-runtime.sh (`conformance-images`), which owns the helpers used here (write_spec,
# push_image, quiet, log, die).
#
# Names and tags are those of test/utils/image/manifest.go at the pinned Kubernetes version; the
# contents follow each image's Dockerfile (test/images/<name>) as far as the specs look:
#   agnhost     /agnhost (+ agnhost-2) built from its Go package, ENTRYPOINT /agnhost, CMD pause, the
#               porter certificate, /uploads, the user and group "defined in image", busybox, bash,
#               curl and netcat-openbsd (the networking specs exec `curl` and `nc -u` in it;
#               /usr/bin comes before busybox's /bin in PATH)
#   busybox     upstream busybox 1.37.0 with every applet (see build_busybox), CMD sh
#   nonroot     busybox, USER 1234
#   nonewprivs  /usr/local/bin/nnp (setuid, prints its effective uid), CMD nnp
#   nginx       a web server on port 80: busybox httpd serving /usr/share/nginx/html (the specs that
#               use it only need a long-running server that is not busybox)
#   httpd       the same on port 80, serving /usr/local/apache2/htdocs
#   pause       the test bed's pause binary
# Digests differ from the real images; no selected spec pins one.

CONFORMANCE_REGISTRY_PATH=e2e-test-images

# Entries for a dynamically linked host binary and every library it loads (as ldd resolves them),
# at the same paths in the image.
dynamic_binary_entries() {
  local binary=$1 lib seen=" "
  for lib in "$binary" $(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
    [[ $seen == *" $lib "* ]] && continue
    seen+="$lib "
    # Parent directories are made 0755 by build-image.mjs.
    printf '{"type":"file","path":"%s","source":"%s","mode":"0755"},\n' "${lib#/}" "$(readlink -f "$lib")"
  done
}

# The images' busybox: upstream busybox 1.37.0 (the version of the e2e busybox image), built static
# from its published source (Debian's pristine orig tarball, checked against its SHA-256) with the
# default configuration. Debian's own busybox-static will not do: its ash drops environment variables
# whose names are not identifiers (`data-1`), which upstream's ash passes on and the envFrom specs
# print with `sh -c env`. Built once into $BIN_DIR (kept by `down`), about a minute on 2 cores.
BUSYBOX_VERSION=1.37.0
BUSYBOX_SOURCE=http://deb.debian.org/debian/pool/main/b/busybox/busybox_$BUSYBOX_VERSION.orig.tar.bz2
BUSYBOX_SHA256=3311dff32e746499f4df0d5df04d7eb396382d7e108bb9250e7b519b837043a4

build_busybox() {
  local out=$BIN_DIR/busybox-$BUSYBOX_VERSION work=$DIR/tmp/busybox-build
  [[ -x $out ]] && return 0
  log "building busybox $BUSYBOX_VERSION from source for the conformance images"
  rm -rf "$work" && mkdir -p "$work"
  curl -fsS --retry 3 -o "$work/src.tar.bz2" "$BUSYBOX_SOURCE" || die "could not download $BUSYBOX_SOURCE"
  echo "$BUSYBOX_SHA256  $work/src.tar.bz2" | sha256sum -c --quiet - || die "$BUSYBOX_SOURCE: checksum mismatch"
  tar -xjf "$work/src.tar.bz2" -C "$work"
  (
    cd "$work/busybox-$BUSYBOX_VERSION"
    quiet make defconfig
    # Static, so it runs in any image; tc does not build against current kernel headers.
    sed -i 's/^# CONFIG_STATIC is not set/CONFIG_STATIC=y/; s/^CONFIG_TC=y/# CONFIG_TC is not set/' .config
    quiet make -j"$(nproc)"
  ) || die "could not build busybox $BUSYBOX_VERSION"
  mv -f "$work/busybox-$BUSYBOX_VERSION/busybox" "$out"
  rm -rf "$work"
  log "built busybox $BUSYBOX_VERSION"
}

# A root filesystem with that busybox and every applet it has (the e2e specs run far more commands
# than our own tests), /etc/passwd and /etc/group as given.
full_busybox_entries() {
  local applet passwd=$1 group=$2 busybox=$BIN_DIR/busybox-$BUSYBOX_VERSION
  printf '{"type":"dir","path":"bin","mode":"0755"},\n{"type":"dir","path":"usr","mode":"0755"},\n'
  printf '{"type":"dir","path":"usr/bin","mode":"0755"},\n{"type":"dir","path":"sbin","mode":"0755"},\n'
  printf '{"type":"dir","path":"usr/sbin","mode":"0755"},\n{"type":"dir","path":"etc","mode":"0755"},\n'
  printf '{"type":"file","path":"bin/busybox","source":"%s","mode":"0755"},\n' "$busybox"
  for applet in $("$busybox" --list); do
    [[ $applet == busybox ]] && continue
    printf '{"type":"symlink","path":"bin/%s","target":"/bin/busybox"},\n' "$applet"
  done
  printf '{"type":"file","path":"etc/passwd","mode":"0644","content":%s},\n' "$(json_string "$passwd")"
  printf '{"type":"file","path":"etc/group","mode":"0644","content":%s},\n' "$(json_string "$group")"
  printf '{"type":"dir","path":"root","mode":"0700"},\n{"type":"dir","path":"home","mode":"0755"},\n'
  printf '{"type":"dir","path":"tmp","mode":"1777"},\n{"type":"dir","path":"var","mode":"0755"}'
}

cmd_conformance_images() {
  require_root
  take_lock
  [[ -f $DIR/env ]] || die "the runtime is not up: run bash scripts/test-runtime.sh up first"
  local upstream_bin k8s_dir
  upstream_bin=$(bash "$SCRIPT_DIR/upstream/build.sh" --bin-dir)
  bash "$SCRIPT_DIR/upstream/build.sh" --only agnhost,nonewprivs >&2 || die "could not build agnhost and nonewprivs"
  # shellcheck source=upstream/versions.env
  source "$SCRIPT_DIR/upstream/versions.env"
  k8s_dir=$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [[ -d $k8s_dir/test/images/agnhost/porter ]] || die "k8s.io/kubernetes@$KUBERNETES_VERSION is not in the module cache"
  build_busybox

  local passwd=$'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n'
  local group=$'root:x:0:\nnogroup:x:65534:\n'
  # The label gives each image an ID of its own: CRI RemoveImage drops every tag of an ID, and the
  # conformance pause image would otherwise be the test bed's sandbox image (same content).
  local env="\"Env\":[\"PATH=$IMAGE_PATH\"],\"Labels\":{\"io.kubelet-ts.test-image.source\":\"conformance\"}" busybox agnhost web specs=() registry=127.0.0.1:$REGISTRY_PORT
  local repo=$registry/$CONFORMANCE_REGISTRY_PATH
  busybox=$(full_busybox_entries "$passwd" "$group")
  agnhost="$(full_busybox_entries "${passwd}user-defined-in-image:x:1000:1000::/home/user-defined-in-image:/bin/sh"$'\n' \
    "${group}user-defined-in-image:x:1000:"$'\n'"group-defined-in-image:x:50000:user-defined-in-image"$'\n'),
$(dynamic_binary_entries /usr/bin/curl)$(dynamic_binary_entries /usr/bin/nc.openbsd)$(dynamic_binary_entries /bin/bash)
{\"type\":\"symlink\",\"path\":\"usr/bin/nc\",\"target\":\"nc.openbsd\"},
{\"type\":\"file\",\"path\":\"agnhost\",\"source\":\"$upstream_bin/agnhost\",\"mode\":\"0755\"},
{\"type\":\"symlink\",\"path\":\"agnhost-2\",\"target\":\"agnhost\"},
{\"type\":\"dir\",\"path\":\"uploads\",\"mode\":\"0755\"},
{\"type\":\"dir\",\"path\":\"home/user-defined-in-image\",\"mode\":\"0755\"},
{\"type\":\"file\",\"path\":\"localhost.crt\",\"source\":\"$k8s_dir/test/images/agnhost/porter/localhost.crt\",\"mode\":\"0644\"},
{\"type\":\"file\",\"path\":\"localhost.key\",\"source\":\"$k8s_dir/test/images/agnhost/porter/localhost.key\",\"mode\":\"0644\"}"
  specs+=("$(write_spec conformance/agnhost "$repo/agnhost:2.56" \
    "{$env,\"Entrypoint\":[\"/agnhost\"],\"Cmd\":[\"pause\"],\"ExposedPorts\":{\"80/tcp\":{},\"8080/tcp\":{},\"8081/tcp\":{},\"9376/tcp\":{},\"5000/tcp\":{}}}" \
    "$agnhost")")
  specs+=("$(write_spec conformance/busybox "$repo/busybox:1.37.0-1" "{$env,\"Cmd\":[\"sh\"]}" "$busybox")")
  specs+=("$(write_spec conformance/nonroot "$repo/nonroot:1.4" "{$env,\"User\":\"1234\",\"Cmd\":[\"sh\"]}" "$busybox")")
  specs+=("$(write_spec conformance/nonewprivs "$repo/nonewprivs:1.3" "{$env,\"Cmd\":[\"nnp\"]}" "$busybox,
{\"type\":\"dir\",\"path\":\"usr/local\",\"mode\":\"0755\"},{\"type\":\"dir\",\"path\":\"usr/local/bin\",\"mode\":\"0755\"},
{\"type\":\"file\",\"path\":\"usr/local/bin/nnp\",\"source\":\"$upstream_bin/nonewprivs\",\"mode\":\"4755\"}")")
  local name tag root
  for name in nginx:1.14-4 nginx:1.15-4 httpd:2.4.38-4 httpd:2.4.39-4; do
    tag=${name#*:}
    case ${name%%:*} in
      nginx) root=usr/share/nginx/html ;;
      httpd) root=usr/local/apache2/htdocs ;;
    esac
    web="$busybox,
{\"type\":\"dir\",\"path\":\"$root\",\"mode\":\"0755\"},
{\"type\":\"file\",\"path\":\"$root/index.html\",\"mode\":\"0644\",\"content\":\"<html><body><h1>It works!</h1></body></html>\\n\"}"
    specs+=("$(write_spec "conformance/${name%%:*}-$tag" "$repo/$name" \
      "{$env,\"Cmd\":[\"httpd\",\"-f\",\"-p\",\"80\",\"-h\",\"/$root\"],\"ExposedPorts\":{\"80/tcp\":{}}}" "$web")")
  done
  specs+=("$(write_spec conformance/pause "$registry/pause:3.10.1" "{$env,\"Entrypoint\":[\"/pause\"]}" \
    "{\"type\":\"file\",\"path\":\"pause\",\"source\":\"$BIN_DIR/pause\",\"mode\":\"0755\"}")")

  local output line spec ref refs=()
  output=$(TMPDIR=$DIR/tmp node "$RUNTIME_SRC/build-image.mjs" "${specs[@]}") || die "could not build the conformance images"
  while read -r line; do
    [[ $line == *" built" ]] && log "built image ${line% built}"
  done <<<"$output"
  for spec in "${specs[@]}"; do
    ref=$(sed -n 's/^{"ref":"\([^"]*\)".*/\1/p' "$spec")
    push_image "$(sed -n 's/.*"out":"\([^"]*\)".*/\1/p' "$spec" | head -n 1)" "$ref"
    refs+=("$ref")
  done
  write_repo_list "$registry"
  # The runner removes exactly these from containerd before a run, so that each run pulls them.
  printf '%s\n' "${refs[@]}" >"$DIR/conformance/images.txt"
  log "conformance images pushed to $registry; repo list: $DIR/conformance/repo-list.yaml"
}

# The KUBE_TEST_REPO_LIST file: each upstream registry the selected specs pull from, mapped to the
# loopback registry. invalidRegistry keeps its default (the specs expect that pull to fail);
# gcAuthenticatedRegistry too (its specs check a pull without credentials fails).
write_repo_list() {
  local registry=$1
  mkdir -p "$DIR/conformance"
  cat >"$DIR/conformance/repo-list.yaml.tmp" <<EOF
# Written by scripts/test-runtime.sh conformance-images: upstream e2e image registries mapped to the
# loopback registry (e2e.test --kube-test-repo-list).
promoterE2eRegistry: $registry/$CONFORMANCE_REGISTRY_PATH
buildImageRegistry: $registry/build-image
gcEtcdRegistry: $registry
gcRegistry: $registry
sigStorageRegistry: $registry/sig-storage
dockerLibraryRegistry: $registry/library
cloudProviderGcpRegistry: $registry/cloud-provider-gcp
EOF
  mv -f "$DIR/conformance/repo-list.yaml.tmp" "$DIR/conformance/repo-list.yaml"
}

#!/usr/bin/env bash
# Build the single-user image a class hub runs (Zero to JupyterHub, or any
# hub that spawns containers) with repo2docker, from binder/: the very
# environment Binder builds, so one tested environment serves both.
#
#   deploy/build-image.sh --no-build                  # check only (CI; no Docker)
#   deploy/build-image.sh IMAGE:TAG [SOURCE] [--ref REF] [--push]
#
#   deploy/build-image.sh registry.example.org/convgrad:v0.1.0 \
#       https://github.com/convgrad/convgrad --ref v0.1.0 --push
#
# SOURCE is a checkout (default: this one) or a git URL; build from a release
# tag. What differs from Binder, and why:
#   --target-repo-dir /srv/convgrad  z2jh mounts a persistent volume on
#       /home/jovyan, hiding whatever the image put there; repo2docker's
#       default puts the repository (and so the editable convgrad and its
#       warm Numba cache) in $HOME. Outside $HOME it survives the mount.
#   --user-name jovyan --user-id 1000  z2jh's singleuser.uid (1000), so the
#       user owns /srv/convgrad and can use the in-tree Numba cache.
# It also checks that binder/requirements.txt pins the jupyterhub of the
# chart in deploy/versions.env: the single-user server must match the hub.
# repo2docker: $REPO2DOCKER, `repo2docker` on PATH, or the venv that
# .ci/check-binder installs (~/.cache/convgrad/repo2docker-venv).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=deploy/versions.env
. deploy/versions.env

die() { echo "deploy/build-image.sh: $*" >&2; exit 1; }
pin=$(sed -nE 's/^jupyterhub==([^ #]+).*/\1/p' binder/requirements.txt)
[ "$pin" = "$JUPYTERHUB_VERSION" ] || die "binder/requirements.txt pins" \
    "jupyterhub==${pin:-nothing}, but chart $Z2JH_CHART_VERSION runs" \
    "$JUPYTERHUB_VERSION (deploy/versions.env)"
grep -q '^nbgitpuller==' binder/requirements.txt ||
    die "binder/requirements.txt must pin nbgitpuller (the lesson links need it)"

r2d="${REPO2DOCKER:-$(command -v repo2docker || true)}"
[ -n "$r2d" ] || r2d="$HOME/.cache/convgrad/repo2docker-venv/bin/repo2docker"
[ -x "$r2d" ] || die "repo2docker not found (pip install jupyter-repo2docker)"

args=(--user-name "$NB_USER" --user-id "$NB_UID"
      --target-repo-dir "$TARGET_REPO_DIR" --no-run)

if [ "${1:-}" = "--no-build" ]; then
    plan=$(mktemp)
    trap 'rm -f "$plan"' EXIT
    "$r2d" --no-build "${args[@]}" . >"$plan" 2>&1 || {
        cat "$plan"; die "repo2docker rejected the image build"; }
    fail=0
    expect() {
        if grep -Eq -- "$1" "$plan"; then echo "build-image: ok   $2"
        else echo "build-image: FAIL $2 (no match for: $1)" >&2; fail=1; fi
    }
    # --target-repo-dir and --user-name are build arguments, which the plan
    # does not print: check the Dockerfile takes them, and the uid it shows
    expect '^ARG REPO_DIR=' \
        "the repository path is a build argument: $TARGET_REPO_DIR, outside \$HOME"
    expect "COPY --chown=$NB_UID:$NB_UID src/ \\$\\{REPO_DIR\\}/" \
        "files owned by uid $NB_UID (z2jh's singleuser.uid), not the builder's"
    expect 'pip install .*-r "?binder/requirements\.txt' \
        "installs binder/requirements.txt (jupyterhub==$JUPYTERHUB_VERSION)"
    expect 'RUN \./binder/postBuild' "runs binder/postBuild (convgrad, Numba warm-up)"
    expect 'R2D_ENTRYPOINT=.*binder/start' "binder/start wraps the server"
    [ "$fail" -eq 0 ] || { cat "$plan"; exit 1; }
    echo "build-image: repo2docker $("$r2d" --version 2>/dev/null) accepts the" \
        "image build (chart $Z2JH_CHART_VERSION, jupyterhub $JUPYTERHUB_VERSION)"
    exit 0
fi

[ $# -ge 1 ] || die "usage: $0 --no-build | IMAGE:TAG [SOURCE] [--ref REF] [--push]"
image=$1; shift
source_dir=.
if [ $# -ge 1 ] && [ "${1#--}" = "$1" ]; then source_dir=$1; shift; fi
exec "$r2d" "${args[@]}" --image-name "$image" "$@" "$source_dir"

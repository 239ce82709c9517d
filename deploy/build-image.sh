#!/usr/bin/env bash
# Build the single-user image a class hub runs (Zero to JupyterHub, or any
# hub that spawns containers) with repo2docker, from binder/: the very
# environment Binder builds, so one tested environment serves both.
#
#   deploy/build-image.sh --no-build                  # check only (CI; no Docker)
#   deploy/build-image.sh [IMAGE:TAG] [SOURCE] [--ref REF] [--push] [--dry-run]
#
#   deploy/build-image.sh --push      # the release deploy/versions.env names
#
# The defaults come from deploy/versions.env, the one place that names them:
# IMAGE:TAG is $IMAGE:$RELEASE, SOURCE https://github.com/$REPOSITORY and REF
# $RELEASE, the branch the lesson links pull (python -m convgrad.course link)
# and the tag deploy/z2jh/values.yaml runs. The image's tag must be the ref it
# is built from. SOURCE may be a checkout, which must then have REF checked
# out: repo2docker ignores --ref for a local folder. --dry-run prints the
# repo2docker command instead of running it. Other options go to repo2docker.
#
# What differs from Binder, and why:
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

image="$IMAGE:$RELEASE" source_dir="https://github.com/$REPOSITORY" ref=$RELEASE
dry_run=0 positional=0 passed=()
while [ $# -gt 0 ]; do
    case $1 in
        --ref) [ $# -ge 2 ] || die "--ref needs a value"; ref=$2; shift 2 ;;
        --ref=*) ref=${1#--ref=}; shift ;;
        --dry-run) dry_run=1; shift ;;
        -*) passed+=("$1"); shift ;;
        *) case $positional in
               0) image=$1 ;;
               1) source_dir=$1 ;;
               *) die "usage: $0 --no-build | [IMAGE:TAG] [SOURCE] [--ref REF] [--push]" ;;
           esac
           positional=$((positional + 1)); shift ;;
    esac
done
tag=${image##*/}
[ "${tag#*:}" != "$tag" ] || die "IMAGE:TAG must have a tag, got $image"
tag=${tag##*:}
[ "$tag" = "$ref" ] || die "the image's tag ($tag) must be the ref it is" \
    "built from ($ref): tag it with the release (deploy/versions.env RELEASE)"
if [ -d "$source_dir" ]; then
    head=$(git -C "$source_dir" rev-parse HEAD) ||
        die "$source_dir is not a git checkout"
    want=$(git -C "$source_dir" rev-parse --verify -q "$ref^{commit}") ||
        die "$source_dir has no ref $ref (git fetch origin $ref)"
    [ "$head" = "$want" ] || die "$source_dir has $head checked out, not $ref" \
        "($want): repo2docker ignores --ref for a local folder; check it out"
fi
cmd=("$r2d" "${args[@]}" --ref "$ref" --image-name "$image" "${passed[@]}" "$source_dir")
if [ "$dry_run" -eq 1 ]; then
    printf '%q ' "${cmd[@]}"; echo
    exit 0
fi
exec "${cmd[@]}"

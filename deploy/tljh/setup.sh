#!/usr/bin/env bash
# convgrad on The Littlest JupyterHub: one server, a few dozen students.
# Run as root on the server, after TLJH's own installer (deploy/README.md):
#
#   sudo bash deploy/tljh/setup.sh [REF] [REPO_URL]
#
# REF and REPO_URL default to RELEASE and REPOSITORY of deploy/versions.env
# (the one place that names them): the release branch the lesson links pull,
# so the notebooks and the installed convgrad are the same commit.
#
# 1. installs convgrad's pinned environment into TLJH's user environment,
#    less the jupyterhub pin (TLJH keeps its user env's jupyterhub matched to
#    its own hub; the pin in binder/requirements.txt is the z2jh chart's),
#    and the Jupyter settings the Binder image has (binder/jupyter/install.py
#    --server, as binder/postBuild runs it): a lesson's kernel starts with no
#    "Select Kernel" dialog, no news popup, and idle kernels are culled after
#    30 minutes (three heavy lessons left open would pass the 1 GiB limit);
# 2. warms Numba's cache into /etc/skel, so each student account TLJH creates
#    starts with compiled kernels in ~/.cache/convgrad/numba (the package in
#    /opt/tljh/user is root's and read-only to students, so convgrad caches
#    per user; without this every student compiles at their first lesson);
# 3. sets the limits and culling measured for one student (the same figures
#    as deploy/z2jh/values.yaml; see benchmarks/RESULTS.md).
set -euo pipefail
# shellcheck source=deploy/versions.env
. "$(cd "$(dirname "$0")/.." && pwd)/versions.env"
REF="${1:-$RELEASE}"
REPO_URL="${2:-https://github.com/$REPOSITORY}"
SRC=/srv/convgrad
USER_PY=/opt/tljh/user/bin/python
[ -x "$USER_PY" ] || { echo "no TLJH user environment at /opt/tljh/user" >&2; exit 1; }

# 1. the environment (pip layer first, then the package)
if [ -d "$SRC/.git" ]; then
    git -C "$SRC" fetch --depth 1 origin "$REF" && git -C "$SRC" checkout -q FETCH_HEAD
else
    git clone --depth 1 --branch "$REF" "$REPO_URL" "$SRC"
fi
grep -v '^jupyterhub==' "$SRC/binder/requirements.txt" >/tmp/convgrad-requirements.txt
"$USER_PY" -m pip install --no-cache-dir -r /tmp/convgrad-requirements.txt
"$USER_PY" -m pip install --no-cache-dir --no-deps "$SRC"
"$USER_PY" "$SRC/binder/jupyter/install.py" --server

# 2. compiled kernels for every new student (same CPU name at run time)
export NUMBA_CPU_NAME=generic
NUMBA_CACHE_DIR=/etc/skel/.cache/convgrad/numba "$USER_PY" -m convgrad.warmup
chmod -R a+rX /etc/skel/.cache
mkdir -p /opt/tljh/config/jupyterhub_config.d
cat >/opt/tljh/config/jupyterhub_config.d/convgrad.py <<'PY'
# convgrad: the CPU name Numba's cache was built for (deploy/tljh/setup.sh)
c.Spawner.environment.update({"NUMBA_CPU_NAME": "generic"})
PY

# 3. limits and culling, as measured (benchmarks/RESULTS.md: every lesson ran
#    under a 1 GiB limit, the largest peaking at 474 MiB, server and kernel;
#    ~7 CPU-seconds from login to the end of lesson 03). TLJH has no memory
#    guarantee: size the server for about 0.5 GB per student.
tljh-config set limits.memory 1G
tljh-config set limits.cpu 1
tljh-config set services.cull.enabled true
tljh-config set services.cull.timeout 3600
tljh-config set services.cull.every 300
tljh-config set services.cull.max_age 28800
tljh-config set user_environment.default_app jupyterlab
tljh-config reload
echo "convgrad $REF is installed; lesson links: python -m convgrad.course link"

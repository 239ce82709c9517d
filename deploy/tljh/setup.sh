#!/usr/bin/env bash
# convgrad on The Littlest JupyterHub: one server, a few dozen students.
# Run as root on the server, after TLJH's own installer (deploy/README.md):
#
#   sudo bash deploy/tljh/setup.sh [--only STEP[,STEP...]] [REF] [REPO_URL]
#
# REF and REPO_URL default to RELEASE and REPOSITORY of deploy/versions.env
# (the one place that names them): the release branch the lesson links pull,
# so the notebooks and the installed convgrad are the same commit. The steps,
# in order (--only runs the ones named, e.g. to apply a changed setting again;
# tests/test_deploy.py runs jupyter, hub and limits in a stand-in prefix):
#
#   env      clones REF into /srv/convgrad and installs convgrad's pinned
#            environment into TLJH's user environment, less the jupyterhub pin
#            (TLJH keeps its user env's jupyterhub matched to its own hub; the
#            pin in binder/requirements.txt is the z2jh chart's);
#   jupyter  the Jupyter settings the Binder image has (binder/jupyter/
#            install.py --server, as binder/postBuild runs it): a lesson's
#            kernel starts with no "Select Kernel" dialog, no news popup, and
#            idle kernels are culled after 30 minutes (three heavy lessons left
#            open would pass the 1 GiB limit);
#   cache    warms Numba's cache into /etc/skel, so each student account TLJH
#            creates starts with compiled kernels in ~/.cache/convgrad/numba
#            (the package in /opt/tljh/user is root's and read-only to
#            students, so convgrad caches per user; without this every student
#            compiles at their first lesson);
#   hub      deploy/tljh/hub_config.py into TLJH's jupyterhub_config.d: the CPU
#            name the cache was built for, and kernels on IPC transport (unix
#            sockets, no TCP ports to collide with dozens of servers on one
#            host) in a short private runtime folder per student, /run/jupyter-
#            <name> (a socket path must stay under 107 bytes; see the file);
#   limits   the limits and culling measured for one student (the same figures
#            as deploy/z2jh/values.yaml; see benchmarks/RESULTS.md).
#
# TLJH_INSTALL_PREFIX (TLJH's own name for /opt/tljh), CONVGRAD_SRC
# (/srv/convgrad) and CONVGRAD_SKEL (/etc/skel) move where it works (tests).
set -euo pipefail
# shellcheck source=deploy/versions.env
. "$(cd "$(dirname "$0")/.." && pwd)/versions.env"
STEPS="env,jupyter,cache,hub,limits"
if [ "${1:-}" = "--only" ]; then
    [ -n "${2:-}" ] || { echo "--only needs steps, from: $STEPS" >&2; exit 2; }
    for s in ${2//,/ }; do
        [[ ",$STEPS," == *",$s,"* ]] || { echo "no step $s; steps: $STEPS" >&2; exit 2; }
    done
    STEPS="$2"
    shift 2
fi
REF="${1:-$RELEASE}"
REPO_URL="${2:-https://github.com/$REPOSITORY}"
SRC="${CONVGRAD_SRC:-/srv/convgrad}"
TLJH="${TLJH_INSTALL_PREFIX:-/opt/tljh}"
SKEL="${CONVGRAD_SKEL:-/etc/skel}"
USER_PY="$TLJH/user/bin/python"
[ -x "$USER_PY" ] || { echo "no TLJH user environment at $TLJH/user" >&2; exit 1; }
wanted() { [[ ",$STEPS," == *",$1,"* ]]; }
step() { wanted "$1" && echo "convgrad: step $1"; }

# env: the environment (pip layer first, then the package)
if step env; then
    if [ -d "$SRC/.git" ]; then
        git -C "$SRC" fetch --depth 1 origin "$REF" && git -C "$SRC" checkout -q FETCH_HEAD
    else
        git clone --depth 1 --branch "$REF" "$REPO_URL" "$SRC"
    fi
    grep -v '^jupyterhub==' "$SRC/binder/requirements.txt" >/tmp/convgrad-requirements.txt
    "$USER_PY" -m pip install --no-cache-dir -r /tmp/convgrad-requirements.txt
    "$USER_PY" -m pip install --no-cache-dir --no-deps "$SRC"
fi

# jupyter: JupyterLab's first screen and the server config (culling)
if step jupyter; then
    "$USER_PY" "$SRC/binder/jupyter/install.py" --server
fi

# cache: compiled kernels for every new student (same CPU name at run time)
if step cache; then
    NUMBA_CPU_NAME=generic NUMBA_CACHE_DIR="$SKEL/.cache/convgrad/numba" \
        "$USER_PY" -m convgrad.warmup
    chmod -R a+rX "$SKEL/.cache"
fi

# hub: the hub's settings for the students' servers (deploy/tljh/hub_config.py)
if step hub; then
    install -D -m 644 "$SRC/deploy/tljh/hub_config.py" \
        "$TLJH/config/jupyterhub_config.d/convgrad.py"
fi

# limits: limits and culling, as measured (benchmarks/RESULTS.md: every lesson
#   ran under a 1 GiB limit, the largest peaking at 474 MiB, server and kernel;
#   ~7 CPU-seconds from login to the end of lesson 03). TLJH has no memory
#   guarantee: size the server for about 0.5 GB per student.
if step limits; then
    tljh-config set limits.memory 1G
    tljh-config set limits.cpu 1
    tljh-config set services.cull.enabled true
    tljh-config set services.cull.timeout 3600
    tljh-config set services.cull.every 300
    tljh-config set services.cull.max_age 28800
    tljh-config set user_environment.default_app jupyterlab
fi
if wanted hub || wanted limits; then
    tljh-config reload
fi
echo "convgrad $REF: done ($STEPS); lesson links: python -m convgrad.course link"

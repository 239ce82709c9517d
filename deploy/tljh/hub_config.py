"""convgrad's part of TLJH's JupyterHub configuration.

``deploy/tljh/setup.sh`` installs this file as
``/opt/tljh/config/jupyterhub_config.d/convgrad.py``. TLJH loads every ``.py``
file in that folder after its own settings, with ``c`` the hub's config (TLJH's
docs: "Custom configuration snippets"). It runs in the hub's environment
(``/opt/tljh/hub``), which has no convgrad, so it uses the standard library only.

* ``NUMBA_CPU_NAME=generic``: the CPU name that the Numba cache in
  ``/etc/skel`` was built for (setup.sh, step ``cache``).
* **Kernels on IPC transport** (``--KernelManager.transport=ipc``): a kernel
  talks to its server over unix sockets, not TCP ports. With dozens of
  servers on one host, kernels that pick random TCP ports at the same time
  collide ("Address already in use"), and the kernel dies
  (benchmarks/RESULTS.md, "A class on JupyterHub").
* **A short, private runtime folder** for those sockets
  (``JUPYTER_RUNTIME_DIR``). A unix socket's path holds at most 107 bytes,
  and a kernel's sockets are ``<runtime folder>/kernel-<uuid>-ipc-<n>``, 50
  bytes after the folder. The default folder,
  ``~/.local/share/jupyter/runtime`` under ``/home/jupyter-<name>``, passes
  107 bytes for names longer than about 10 characters, and then every kernel
  start fails with an HTTP 500. systemdspawner (TLJH's spawner, 1.0 and
  later) already gives each server a ``RuntimeDirectory``:
  ``/run/<unit name>`` (``/run/jupyter-<name>``), made by systemd, owned by the
  student, mode 0700, on tmpfs, and removed when the server stops. Kernels
  use it. If a name is too long for that (more than 44 bytes), the unit gets
  a second runtime folder, ``/run/jr/<hub user id>``, made the same way, and
  kernels use that one instead. If even that one would be too long, the
  spawn is refused with the reason, not left to fail at the first kernel.
"""

RUN_ROOT = "/run"  # where systemd makes a unit's RuntimeDirectory
SOCKET_PATH_MAX = 107  # bytes in a unix socket's path (sun_path, less its NUL)
#: what follows the runtime folder in a kernel's socket path:
#: /kernel-<uuid4>-ipc-<channel>, channels 1 to 5
SOCKET_NAME_BYTES = len("/kernel-") + 36 + len("-ipc-1")


def socket_path_bytes(runtime_dir: str) -> int:
    """The length in bytes of the longest kernel socket path under
    ``runtime_dir``."""
    return len(runtime_dir.encode()) + SOCKET_NAME_BYTES


def kernel_runtime_dir(spawner) -> str:
    """Choose the runtime folder for ``spawner``'s kernels. When the unit's
    own folder is too long, add a short one to the unit's
    ``RuntimeDirectory``. Raise ``ValueError`` if no folder is short enough."""
    properties = spawner.unit_extra_properties
    folders = properties.get("RuntimeDirectory", spawner.unit_name).split()
    own = f"{RUN_ROOT}/{folders[0]}"
    if socket_path_bytes(own) <= SOCKET_PATH_MAX:
        return own
    short = f"jr/{spawner.user.id}"
    runtime = f"{RUN_ROOT}/{short}"
    if socket_path_bytes(runtime) > SOCKET_PATH_MAX:
        raise ValueError(
            f"convgrad: kernel sockets under {own} or {runtime} would be "
            f"{socket_path_bytes(runtime)} bytes or more, over the "
            f"{SOCKET_PATH_MAX} a unix socket allows; every kernel would fail "
            f"to start (deploy/tljh/hub_config.py)"
        )
    if short not in folders:
        properties["RuntimeDirectory"] = " ".join([*folders, short])
    return runtime


def convgrad_pre_spawn(spawner) -> None:
    """Point the server's kernels at their short runtime folder."""
    runtime = kernel_runtime_dir(spawner)
    spawner.environment["JUPYTER_RUNTIME_DIR"] = runtime
    spawner.log.info("convgrad: %s's kernels use IPC sockets in %s",
                     spawner.user.name, runtime)


# TLJH loads this file with traitlets' load_subconfig: ``c`` starts empty here
# and is merged over TLJH's own settings. A later file in jupyterhub_config.d
# that sets its own Spawner.pre_spawn_hook replaces this one: it must call
# convgrad_pre_spawn itself.
c.Spawner.environment.update({"NUMBA_CPU_NAME": "generic"})  # noqa: F821
c.Spawner.args.append("--KernelManager.transport=ipc")  # noqa: F821
c.Spawner.pre_spawn_hook = convgrad_pre_spawn  # noqa: F821

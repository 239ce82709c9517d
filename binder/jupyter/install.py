"""Install the Jupyter settings a convgrad learner gets.

    python binder/jupyter/install.py            # JupyterLab's first screen
    python binder/jupyter/install.py --server   # ...and the image's server config

``overrides.json`` (beside this file) goes into JupyterLab's application
settings folder, ``<app dir>/settings/overrides.json`` (``<sys.prefix>/share/
jupyter/lab/settings/`` in a venv or an image): the notebook's kernel starts
without the "Select Kernel" dialog, and JupyterLab never asks to fetch news.
Keys already in that file are kept; ours are merged in. A learner's own
settings (Settings Editor) still win over these defaults.

``--server`` also merges ``jupyter_server_config.json`` into
``<sys.prefix>/etc/jupyter/jupyter_server_config.json``, which every Jupyter
server of the environment reads (``jupyter lab``, ``jupyterhub-singleuser``;
the ``jupyter_server_config.d/`` folder only enables extensions): idle
kernels are culled (a student who opens every lesson does not keep every
kernel until the server's memory limit kills it). ``binder/postBuild`` runs
this with ``--server`` (Binder, and the hub image built from ``binder/``);
the README's course command runs it without.

``--lab-dir DIR`` / ``--server-dir DIR`` write somewhere else (tests).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OVERRIDES = HERE / "overrides.json"
SERVER_CONFIG = HERE / "jupyter_server_config.json"


def lab_settings_dir() -> Path:
    """The folder JupyterLab reads ``overrides.json`` from by default (its
    ``LabApp.app_settings_dir``)."""
    from jupyterlab.commands import get_app_dir

    return Path(get_app_dir()) / "settings"


def _merge(into: dict, new: dict) -> dict:
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value
    return into


def _merge_into(target: Path, source: Path) -> Path:
    """Merge the JSON of ``source`` into ``target`` (kept keys, ours win)."""
    current = {}
    if target.is_file():
        current = json.loads(target.read_text(encoding="utf-8") or "{}")
    merged = _merge(current, json.loads(source.read_text(encoding="utf-8")))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
    return target


def install_lab(folder: Path) -> Path:
    return _merge_into(folder / "overrides.json", OVERRIDES)


def install_server(folder: Path) -> Path:
    return _merge_into(folder / "jupyter_server_config.json", SERVER_CONFIG)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", action="store_true",
                        help="also install the server config (idle-kernel culling)")
    parser.add_argument("--lab-dir", type=Path, default=None)
    parser.add_argument("--server-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    lab = install_lab(args.lab_dir or lab_settings_dir())
    print(f"convgrad: JupyterLab settings in {lab}")
    if args.server:
        server = install_server(
            args.server_dir or Path(sys.prefix) / "etc" / "jupyter")
        print(f"convgrad: Jupyter server config in {server}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

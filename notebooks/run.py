"""Execute notebooks/compare.ipynb headless and write the executed notebook and its figures.

    .cita/venv-notebook/bin/python notebooks/run.py [--a REPORT] [--b REPORT] [--out DIR]

Run it with the notebook venv's interpreter (`npm run notebook`, `tools/notebook-env.sh`): the kernel
is that same interpreter (a `python3` kernelspec written inside the venv prefix and put first on
JUPYTER_PATH, so no user or system kernelspec is used). Writes DIR/compare.executed.ipynb and the
figures DIR/*.png (default DIR: reports/notebook). Exits 1 when a cell raises, printing the error;
the partly executed notebook is still written, for the traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "compare.ipynb"


def venv_kernelspec() -> None:
    """A `python3` kernelspec in this interpreter's prefix, first on JUPYTER_PATH."""
    data = Path(sys.prefix) / "share" / "jupyter"
    spec_dir = data / "kernels" / "python3"
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (cita notebook venv)",
        "language": "python",
        "metadata": {"debugger": False},
    }
    path = spec_dir / "kernel.json"
    if not path.is_file() or json.loads(path.read_text()) != spec:
        spec_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(spec, indent=1) + "\n")
    os.environ["JUPYTER_PATH"] = os.pathsep.join([str(data), *filter(None, [os.environ.get("JUPYTER_PATH")])])
    # The venv's bin first, for anything the kernel starts by name.
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def main() -> int:
    parser = argparse.ArgumentParser(description="Execute notebooks/compare.ipynb headless.")
    parser.add_argument("--a", help="report A (default: $CITA_REPORT_A or reports/baseline.json)")
    parser.add_argument("--b", help="report B (default: $CITA_REPORT_B or reports/ab-fusion.json)")
    parser.add_argument("--out", help="output folder (default: reports/notebook under the project root)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell (default: 600)")
    args = parser.parse_args()

    try:
        import nbformat
        from nbclient import NotebookClient
        from nbclient.exceptions import CellExecutionError
    except ImportError as err:
        print(f"notebook: {err}; run `npm run setup` (or bash tools/notebook-env.sh) and use "
              f".cita/venv-notebook/bin/python", file=sys.stderr)
        return 2

    # Paths given on the command line are relative to the caller's folder; those from the environment
    # and the defaults, to the project root.
    env = {"CITA_ROOT": str(ROOT)}
    for flag, var in ((args.a, "CITA_REPORT_A"), (args.b, "CITA_REPORT_B")):
        if flag:
            env[var] = str(Path(flag).resolve())
    out = Path(args.out).resolve() if args.out else ROOT / "reports" / "notebook"
    out.mkdir(parents=True, exist_ok=True)
    env["CITA_NOTEBOOK_OUT"] = str(out)
    os.environ.update(env)
    os.environ["MPLBACKEND"] = "Agg"
    venv_kernelspec()

    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(nb, kernel_name="python3", timeout=args.timeout, startup_timeout=300,
                            resources={"metadata": {"path": str(ROOT)}})
    # Kernel sockets over IPC in a private temporary folder, not TCP on localhost.
    sockets = tempfile.mkdtemp(prefix="cita-kernel-")
    client.km = client.kernel_manager_class(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "kernel"))
    executed = out / "compare.executed.ipynb"
    start = time.monotonic()
    failed: CellExecutionError | None = None
    try:
        client.execute()
    except CellExecutionError as err:
        failed = err
    finally:
        nbformat.write(nb, executed)
        shutil.rmtree(sockets, ignore_errors=True)
    seconds = time.monotonic() - start
    if failed is not None:
        print(f"notebook failed after {seconds:.1f}s: {failed.ename}: {failed.evalue}", file=sys.stderr)
        print(f"the partly executed notebook, with the traceback: {executed}", file=sys.stderr)
        return 1
    pngs = sorted(p.name for p in out.glob("*.png"))
    print(f"notebook executed in {seconds:.1f}s: {executed}")
    print(f"figures in {out}: {', '.join(pngs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

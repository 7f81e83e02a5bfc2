"""The notebooks run top to bottom, offline."""

import nbformat
import pytest
from conftest import ROOT
from nbclient import NotebookClient

pytestmark = pytest.mark.slow  # Ray, a browser or a notebook kernel: the full run only


@pytest.mark.parametrize("name", ["quickstart.ipynb", "alignment.ipynb"])
def test_notebook_executes(name):
    path = ROOT / "notebooks" / name
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    if name == "quickstart.ipynb":
        assert "good > meaning" in text and "untranslated" in text
    else:
        assert any("image/png" in o.get("data", {}) for o in outputs)

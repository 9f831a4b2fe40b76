"""Generated documentation stays in step with the code."""

import importlib.util
from importlib.machinery import SourceFileLoader
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_rules_md_is_up_to_date():
    loader = SourceFileLoader("gen_rules_doc", str(REPO / "scripts" / "gen-rules-doc"))
    spec = importlib.util.spec_from_loader("gen_rules_doc", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    assert (REPO / "RULES.md").read_text() == module.render(), "run scripts/gen-rules-doc"

"""Regenerate the variants table in ``docs/variants.md`` from the preset registry.

    .venv/bin/python scripts/gen_variants_doc.py            # rewrite the generated parts of docs/variants.md
    .venv/bin/python scripts/gen_variants_doc.py --check    # exit 1 if any of them is stale

Only the text between the markers (``<!-- variants:start -->`` and ``<!-- variants:end -->``,
and the options and readings markers) is rewritten; it comes from
:mod:`pitch_sdk.display.variants_doc`, whose table ``pitch-bot variants`` shows too.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pitch_sdk.display.variants_doc import with_table

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "variants.md"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report whether the document is stale")
    args = parser.parse_args()
    document = TARGET.read_text()
    fresh = with_table(document)
    if args.check:
        if fresh != document:
            print(f"stale generated text in {TARGET.relative_to(ROOT)} (run scripts/gen_variants_doc.py)")
            return 1
        print("variants tables and readings are up to date")
        return 0
    TARGET.write_text(fresh)
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

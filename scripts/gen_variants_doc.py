"""Regenerate the variants table in ``docs/variants.md`` from the preset registry.

    .venv/bin/python scripts/gen_variants_doc.py            # rewrite the table in docs/variants.md
    .venv/bin/python scripts/gen_variants_doc.py --check    # exit 1 if the checked-in table is stale

Only the text between ``<!-- variants:start -->`` and ``<!-- variants:end -->`` is
rewritten; the rows come from :mod:`pitch_sdk.display.variants_doc`, which ``pitch-bot variants``
uses too.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pitch_sdk.display.variants_doc import markdown_table, table_in, with_table

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "variants.md"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report whether the table is stale")
    args = parser.parse_args()
    document = TARGET.read_text()
    fresh = markdown_table()
    if args.check:
        if table_in(document) != fresh:
            print(f"stale variants table in {TARGET.relative_to(ROOT)} (run scripts/gen_variants_doc.py)")
            return 1
        print("variants table is up to date")
        return 0
    TARGET.write_text(with_table(document, fresh))
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Print why each skipped test was skipped, from ctest's JUnit report (tests/run-all).

ctest shows a skipped test as "Skipped" and nothing else, even with --output-on-failure; a test
skips itself (exit 77, SKIP_RETURN_CODE) after printing one line that starts with "SKIP:". This
prints that line for every skipped test, or says that the test gave none (a bug in the test:
every skip must say why). Usage: skipped.py JUNIT.xml; exit 0 always (a skip is not a failure).
"""

import sys
import xml.etree.ElementTree as ET


def reason(output):
    """The test's own SKIP: line (the last one), else its last non-empty line, else None."""
    lines = [line.strip() for line in (output or "").splitlines() if line.strip()]
    marked = [line for line in lines if line.startswith("SKIP")]
    return (marked or lines or [None])[-1]


def skipped(path):
    """[(test name, reason or None)] of the tests the report marks skipped."""
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.get("status") == "skipped" or case.find("skipped") is not None:
            out.append((case.get("name"), reason(case.findtext("system-out"))))
    return out


def main(argv):
    if len(argv) != 2:
        print("usage: skipped.py JUNIT.xml", file=sys.stderr)
        return 2
    try:
        rows = skipped(argv[1])
    except (OSError, ET.ParseError) as err:
        print(f"skipped tests: cannot read {argv[1]}: {err}", file=sys.stderr)
        return 0
    for name, why in rows:
        print(f"skipped {name}: {why or 'the test printed no reason (a bug in the test)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

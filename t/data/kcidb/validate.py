#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks KCIDB report files against schema-v4.5.json with Debian's
python3-jsonschema (Draft 2020-12), and what a schema cannot say: every
id once per kind, every build's checkout and every test's build in the
report, times that parse as RFC 3339. Prints "ok: C checkouts, B builds,
T tests" per file, or each problem and exits 1.

Usage: validate.py SCHEMA FILE...
"""
import datetime
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    v = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    bad = 0
    for path in sys.argv[2:]:
        rep = json.load(open(path))
        errs = ["%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message)
                for e in v.iter_errors(rep)]
        ids = {}
        for kind in ("checkouts", "builds", "tests"):
            seen = set()
            for o in rep.get(kind, []):
                if o["id"] in seen:
                    errs.append("%s: id '%s' twice" % (kind, o["id"]))
                seen.add(o["id"])
                for k in ("start_time",):
                    if k in o:
                        try:
                            datetime.datetime.fromisoformat(o[k])
                        except ValueError:
                            errs.append("%s '%s': %s '%s' is not RFC 3339" % (kind, o["id"], k, o[k]))
            ids[kind] = seen
        for b in rep.get("builds", []):
            if b["checkout_id"] not in ids["checkouts"]:
                errs.append("build '%s': checkout '%s' not in the report" % (b["id"], b["checkout_id"]))
        for t in rep.get("tests", []):
            if t["build_id"] not in ids["builds"]:
                errs.append("test '%s': build '%s' not in the report" % (t["id"], t["build_id"]))
        if errs:
            bad = 1
            for e in errs[:20]:
                print("%s: %s" % (path, e))
        else:
            print("ok: %d checkouts, %d builds, %d tests" % tuple(len(ids[k]) for k in ("checkouts", "builds", "tests")))
    sys.exit(bad)


if __name__ == "__main__":
    main()

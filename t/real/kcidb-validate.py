#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""t/real/kcidb-validate.py: KCIDB report files checked by kcidb-io's own
validator (KCIDB's schema package, not kfleet's transcription of it), as
KCIDB's ingester does: against the version the file claims, then again
after upgrade() to the newest. kcidb-io is found on PYTHONPATH
(t/real/kcidb.sh sets it). Debian 12 lacks rfc3339-validator, so
"date-time" gets a checker here: RFC 3339, a time zone required.

Prints "ok: FILE: vA.B (C checkouts, B builds, T tests), valid as vX.Y
after upgrade" per file, or the validator's message and exits 1.

Usage: kcidb-validate.py FILE...
"""
import datetime
import json
import re
import sys

import jsonschema
from kcidb_io import schema as S

RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$", re.I)


@jsonschema.Draft7Validator.FORMAT_CHECKER.checks("date-time", raises=ValueError)
def date_time(v):
    if not isinstance(v, str):
        return True
    if not RFC3339.match(v):
        raise ValueError("'%s' is not RFC 3339" % v)
    datetime.datetime.fromisoformat(re.sub(r"[zZ]$", "+00:00", v))
    return True


def main():
    bad = 0
    for path in sys.argv[1:]:
        try:
            d = json.load(open(path))
            v = S.LATEST.get_exactly_compatible(d)
            if v is None:
                raise ValueError("no kcidb-io schema version is exactly compatible")
            v.validate(d)
            up = S.LATEST.upgrade(d)
            S.LATEST.validate(up)
            print("ok: %s: v%d.%d (%d checkouts, %d builds, %d tests), valid as v%d.%d after upgrade"
                  % (path, v.major, v.minor, len(d.get("checkouts", [])), len(d.get("builds", [])),
                     len(d.get("tests", [])), S.LATEST.major, S.LATEST.minor))
        except (ValueError, jsonschema.exceptions.ValidationError) as e:
            bad = 1
            print("%s: %s" % (path, str(e).split("\n\n")[0].replace("\n", " ")[:2000]))
    sys.exit(bad)


if __name__ == "__main__":
    main()

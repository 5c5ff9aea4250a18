#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""An SMTP sink for kfleet's watch tests (Debian's python3-aiosmtpd).

Usage: smtp-sink.py PORTFILE DIR
Listens on 127.0.0.1 (a free port, written to PORTFILE once it serves)
and keeps every mail it takes as DIR/N.eml (the bytes as received) with
DIR/N.json ({"mail_from", "rcpt_tos"}). While DIR/refuse exists, it
refuses every mail at DATA with "554 5.7.1 refused by the test".
"""
import json
import os
import socket
import sys
import time

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self, d):
        self.dir = d
        self.n = 0

    async def handle_DATA(self, server, session, envelope):
        if os.path.exists(os.path.join(self.dir, "refuse")):
            return "554 5.7.1 refused by the test"
        self.n += 1
        base = os.path.join(self.dir, str(self.n))
        with open(base + ".eml", "wb") as f:
            f.write(envelope.original_content)
        with open(base + ".json", "w") as f:
            json.dump({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos}, f)
        return "250 OK"


def main():
    portfile, d = sys.argv[1], sys.argv[2]
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    c = Controller(Sink(d), hostname="127.0.0.1", port=port)
    c.start()
    with open(portfile + ".tmp", "w") as f:
        f.write(str(port))
    os.rename(portfile + ".tmp", portfile)
    try:
        while True:
            time.sleep(3600)
    finally:
        c.stop()


if __name__ == "__main__":
    main()

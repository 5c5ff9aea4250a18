#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A KCIDB-shaped HTTP receiver for kfleet's watch tests.

  POST /submit       a KCIDB report (JSON): kept as DIR/N.json, 200; while
                     DIR/fail holds a number N > 0, answers 500 instead and
                     counts N down; a body that is not JSON: 400. When
                     DIR/token exists, a request without "Authorization:
                     Bearer <its first line>" (kcidb-ng's REST submission)
                     is a 401; each request's Authorization is appended to
                     DIR/auth.log
  GET  /received     how many reports were kept

Usage: sink.py PORTFILE DIR   (listens on 127.0.0.1, a free port, written to
PORTFILE once it serves)
"""
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
DIR = None


class Handler(BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):
        sys.stderr.write("sink: " + (fmt % args) + "\n")

    def answer(self, status, text):
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path != "/received":
            return self.answer(404, "no such page")
        with LOCK:
            n = len([f for f in os.listdir(DIR) if f.endswith(".json")])
        self.answer(200, str(n))

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        if self.path != "/submit":
            return self.answer(404, "no such page")
        auth = self.headers.get("Authorization", "")
        with LOCK:
            open(os.path.join(DIR, "auth.log"), "a").write(auth + "\n")
            tf = os.path.join(DIR, "token")
            if os.path.exists(tf) and auth != "Bearer " + open(tf).read().split("\n")[0]:
                return self.answer(401, "no valid bearer token")
        with LOCK:
            fail = os.path.join(DIR, "fail")
            left = int(open(fail).read().strip() or "0") if os.path.exists(fail) else 0
            if left > 0:
                open(fail, "w").write(str(left - 1))
                return self.answer(500, "sink told to fail")
            try:
                json.loads(body)
            except ValueError as e:
                return self.answer(400, "not JSON: %s" % e)
            k = len([f for f in os.listdir(DIR) if f.endswith(".json")])
            open(os.path.join(DIR, "%d.json" % (k + 1)), "wb").write(body)
        self.answer(200, "ok")


def main():
    global DIR
    DIR = sys.argv[2]
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tmp = sys.argv[1] + ".tmp"
    open(tmp, "w").write(str(srv.server_address[1]))
    os.rename(tmp, sys.argv[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()

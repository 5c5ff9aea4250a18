#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A small patchwork-shaped HTTP server for kfleet's watch tests.

Serves the parts of patchwork's REST API v1.2 a watch reads and writes:
  GET  /api/1.2/series/?project=P&since=DATE&order=id&per_page=N&page=K
  GET  /api/1.2/series/ID/ (and /api/series/ID/, the newest version's)
  GET  /series/ID/mbox/                          the series' mbox: its patches
                                                 only, as patchwork's
  GET  /cover/ID/mbox/                           the cover letter's mbox
  POST /api/1.2/patches/ID/checks/               with "Authorization: Token T"
(the JSON as patchwork gives it: series with project, submitter,
cover_letter and patches, received_all; a check's state, target_url,
description and context; 401 {"detail": "Invalid token."} for a wrong
token). And, for the test only, under /control/:
  POST /control/post    {"mbox": PATH, "project": P, "version": N,
                         "received_all": true, "mbox_status": 200}
                        "posts" the series in PATH's mails (its date: now)
  POST /control/mode    {"project": P, "mode": "ok|garbage|truncated|huge|slow|object"}
                        how the project's series list answers from now on
  POST /control/lore    {"mbox": PATH, "list": L} "posts" PATH's mails to the
                        public-inbox-shaped list L, served as
                        GET /lore/L/new.atom (the Atom feed, newest first) and
                        GET /lore/L/MSGID/t.mbox.gz (the thread's mbox)
  GET  /control/checks  every check received, in order, with the token
  GET  /control/requests  how many series list requests came

Usage: server.py PORTFILE TOKEN   (listens on 127.0.0.1, a free port,
written to PORTFILE once it serves)
"""
import datetime
import email
import gzip
import html
import email.policy
import json
import re
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
SERIES = []          # patchwork series objects, by id order
MBOX = {}            # series id -> bytes (the patches)
COVER_MBOX = {}      # cover letter id -> bytes
MBOX_STATUS = {}     # series id -> HTTP status of its mbox
CHECKS = []
LORE = {}            # list -> [{"msgid", "raw", "subject", "author", "email", "refs", "parent", "updated"}]
STATE = {"modes": {}, "list_requests": 0, "next_id": 1, "next_patch": 100}
TOKEN = None
BASE = None


def pw_name(subject):
    """'[PATCH fake-next v2 1/3] x' -> '[fake-next,v2,1/3] x', as patchwork names patches"""
    m = re.match(r'^\s*\[([^\]]*)\]\s*(.*)$', subject, re.S)
    if not m:
        return subject
    words = [w for w in re.split(r'[\s,]+', m.group(1)) if w and w.upper() != 'PATCH']
    return ('[%s] %s' % (','.join(words), m.group(2))) if words else m.group(2)


def title(subject):
    return re.sub(r'^\s*(\[[^\]]*\]\s*)+', '', subject)


def post_series(req):
    raw = open(req["mbox"], "rb").read()
    parts = [p for p in re.split(rb"(?m)^(?=From [0-9a-f]{40} )", raw) if p.strip()]
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None).isoformat(timespec="seconds")
    with LOCK:
        sid = STATE["next_id"]
        STATE["next_id"] += 1
        cover, patches, submitter, patch_raw = None, [], None, []
        for part in parts:
            msg = email.message_from_bytes(part, policy=email.policy.default)
            subj = str(msg["Subject"] or "").replace("\n", " ")
            m = re.search(r'(\d+)/(\d+)\]', subj)
            if not m or msg["In-Reply-To"] and not re.search(r'\[PATCH', subj):
                continue
            if subj.lower().startswith("re:"):
                continue
            pid = STATE["next_patch"]
            STATE["next_patch"] += 1
            frm = email.utils.parseaddr(str(msg["From"]))
            submitter = submitter or {"id": 1, "url": BASE + "/api/1.2/people/1/",
                                      "name": frm[0], "email": frm[1]}
            obj = {"id": pid, "url": "%s/api/1.2/patches/%d/" % (BASE, pid),
                   "web_url": "%s/project/%s/patch/%s/" % (BASE, req["project"], msg["Message-Id"].strip("<>")),
                   "msgid": str(msg["Message-Id"]), "list_archive_url": None, "date": now,
                   "name": pw_name(subj), "mbox": "%s/patch/%d/mbox/" % (BASE, pid)}
            if m.group(1) == "0":
                obj["mbox"] = "%s/cover/%d/mbox/" % (BASE, pid)
                cover = obj
                COVER_MBOX[pid] = part
            else:
                patches.append(obj)
                patch_raw.append(part)
        first = cover or patches[0]
        s = {"id": sid, "url": "%s/api/1.2/series/%d/" % (BASE, sid),
             "web_url": "%s/project/%s/list/?series=%d" % (BASE, req["project"], sid),
             "project": {"id": 1, "url": BASE + "/api/1.2/projects/1/", "name": req["project"],
                         "link_name": req["project"], "list_id": req["project"] + ".kfleet.invalid",
                         "list_email": req["project"] + "@kfleet.invalid", "web_url": "", "scm_url": "",
                         "webscm_url": "", "list_archive_url": "", "list_archive_url_format": "",
                         "commit_url_format": ""},
             "name": title(first["name"]), "date": now, "submitter": submitter,
             "version": int(req.get("version", 1)), "total": len(patches),
             "received_total": len(patches), "received_all": bool(req.get("received_all", True)),
             "mbox": "%s/series/%d/mbox/" % (BASE, sid), "cover_letter": cover, "patches": patches}
        SERIES.append(s)
        MBOX[sid] = b"".join(patch_raw)
        MBOX_STATUS[sid] = int(req.get("mbox_status", 200))
    return s


def post_lore(req):
    raw = open(req["mbox"], "rb").read()
    parts = re.split(rb"(?m)^(?=From [0-9a-f]{40} )", raw)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    with LOCK:
        lst = LORE.setdefault(req["list"], [])
        for part in parts:
            if not part.strip():
                continue
            msg = email.message_from_bytes(part, policy=email.policy.default)
            frm = email.utils.parseaddr(str(msg["From"]))
            refs = (str(msg["References"] or "") + " " + str(msg["In-Reply-To"] or "")).split()
            lst.append({"msgid": str(msg["Message-Id"]).strip().strip("<>"), "raw": part,
                        "subject": str(msg["Subject"]).replace("\n", " "), "author": frm[0],
                        "email": frm[1], "refs": [r.strip("<>") for r in refs],
                        "parent": str(msg["In-Reply-To"] or "").strip().strip("<>"), "updated": now})
    return {"list": req["list"], "messages": len(LORE[req["list"]])}


def atom(lst, name):
    base = "%s/lore/%s" % (BASE, name)
    out = ['<?xml version="1.0" encoding="us-ascii"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
           'xmlns:thr="http://purl.org/syndication/thread/1.0"><title>%s</title>'
           '<link rel="alternate" type="text/html" href="%s/"/><link rel="self" href="%s/new.atom"/>'
           '<id>mailto:%s@kfleet.invalid</id><updated>%s</updated>'
           % (name, base, base, name, lst[-1]["updated"] if lst else "1970-01-01T00:00:00Z")]
    for m in reversed(lst):
        e = html.escape
        out.append('<entry><author><name>%s</name><email>%s</email></author><title>%s</title>'
                   '<updated>%s</updated><link href="%s/%s/"/><id>urn:uuid:%08x</id>'
                   % (e(m["author"]), e(m["email"]), e(m["subject"]), m["updated"], base,
                      urllib.parse.quote(m["msgid"], safe="@.-_+"), abs(hash(m["msgid"])) & 0xffffffff))
        if m["parent"]:
            out.append('<thr:in-reply-to ref="urn:uuid:%08x" href="%s/%s/"/>'
                       % (abs(hash(m["parent"])) & 0xffffffff, base, urllib.parse.quote(m["parent"], safe="@.-_+")))
        out.append('<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><pre>%s</pre></div></content></entry>'
                   % e(m["raw"][:200].decode("utf-8", "replace")))
    out.append("</feed>")
    return "".join(out).encode("ascii", "xmlcharrefreplace")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("pw: " + (fmt % args) + "\n")

    def send(self, status, body, ctype="application/json", headers=None):
        if not isinstance(body, (bytes, bytearray)):
            body = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def series_list(self, q):
        with LOCK:
            STATE["list_requests"] += 1
            mode = STATE["modes"].get(q.get("project", [""])[0], "ok")
            items = [s for s in SERIES if s["project"]["link_name"] == q.get("project", [""])[0]]
        if mode == "garbage":
            return self.send(200, b"<html>this is not json</html>", "text/html")
        if mode == "object":
            return self.send(200, {"detail": "Not found."})
        if mode == "huge":
            return self.send(200, b"[" + b" " * (5 << 20) + b"]")
        if mode == "slow":
            time.sleep(8)
        since = q.get("since", [None])[0]
        if since:
            items = [s for s in items if s["date"] >= since]
        items.sort(key=lambda s: s["id"])
        per = int(q.get("per_page", ["30"])[0])
        page = int(q.get("page", ["1"])[0])
        chunk = items[(page - 1) * per:page * per]
        body = json.dumps(chunk).encode()
        if mode == "truncated":
            body = body[:len(body) // 2]
        headers = {}
        if page * per < len(items):
            nq = dict((k, v[0]) for k, v in q.items())
            nq["page"] = str(page + 1)
            headers["Link"] = '<%s/api/1.2/series/?%s>; rel="next"' % (BASE, urllib.parse.urlencode(nq))
        self.send(200, body, headers=headers)

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query)
        m = re.match(r"^/api/(?:1\.2/)?series/(\d+)/$", u.path)
        mb = re.match(r"^/series/(\d+)/mbox/$", u.path)
        mc = re.match(r"^/cover/(\d+)/mbox/$", u.path)
        if mc:
            with LOCK:
                raw = COVER_MBOX.get(int(mc.group(1)))
            if raw is None:
                return self.send(404, b"<h1>Not Found</h1>", "text/html")
            return self.send(200, raw, "text/plain; charset=utf-8")
        if u.path == "/api/1.2/series/":
            return self.series_list(q)
        if m:
            with LOCK:
                s = [x for x in SERIES if x["id"] == int(m.group(1))]
            return self.send(200, s[0]) if s else self.send(404, {"detail": "Not found."})
        if mb:
            sid = int(mb.group(1))
            with LOCK:
                st, raw = MBOX_STATUS.get(sid, 404), MBOX.get(sid)
            if st != 200 or raw is None:
                return self.send(st if st != 200 else 404, b"<h1>Not Found</h1>", "text/html")
            return self.send(200, raw, "text/plain; charset=utf-8")
        lf = re.match(r"^/lore/([^/]+)/new\.atom$", u.path)
        lt = re.match(r"^/lore/([^/]+)/([^/]+)/t\.mbox\.gz$", u.path)
        if lf:
            with LOCK:
                lst = list(LORE.get(lf.group(1), []))
            return self.send(200, atom(lst, lf.group(1)), "application/atom+xml")
        if lt:
            mid = urllib.parse.unquote(lt.group(2))
            with LOCK:
                thread = [m["raw"] for m in LORE.get(lt.group(1), []) if m["msgid"] == mid or mid in m["refs"]]
            if not thread:
                return self.send(404, b"No message found", "text/plain")
            return self.send(200, gzip.compress(b"".join(thread)), "application/gzip")
        if u.path == "/control/checks":
            with LOCK:
                return self.send(200, CHECKS)
        if u.path == "/control/requests":
            with LOCK:
                return self.send(200, {"list_requests": STATE["list_requests"]})
        self.send(404, {"detail": "Not found."})

    def do_POST(self):
        u = urllib.parse.urlsplit(self.path)
        data = self.body()
        m = re.match(r"^/api/1\.2/patches/(\d+)/checks/$", u.path)
        if m:
            auth = self.headers.get("Authorization", "")
            if auth != "Token " + TOKEN:
                with LOCK:
                    CHECKS.append({"patch": int(m.group(1)), "rejected": True, "authorization": auth})
                return self.send(401, {"detail": "Invalid token."})
            try:
                c = json.loads(data)
            except ValueError:
                return self.send(400, {"detail": "JSON parse error"})
            if c.get("state") not in ("pending", "success", "warning", "fail"):
                return self.send(400, {"state": ['"%s" is not a valid choice.' % c.get("state")]})
            with LOCK:
                CHECKS.append({"patch": int(m.group(1)), "state": c["state"],
                               "target_url": c.get("target_url"), "description": c.get("description"),
                               "context": c.get("context"), "content_type": self.headers.get("Content-Type")})
                cid = len(CHECKS)
            return self.send(201, dict(c, id=cid, url="%s/api/1.2/patches/%s/checks/%d/" % (BASE, m.group(1), cid)))
        if u.path == "/control/post":
            return self.send(201, post_series(json.loads(data)))
        if u.path == "/control/lore":
            return self.send(201, post_lore(json.loads(data)))
        if u.path == "/control/mode":
            req = json.loads(data)
            with LOCK:
                STATE["modes"][req["project"]] = req["mode"]
            return self.send(200, req)
        self.send(404, {"detail": "Not found."})


def main():
    global TOKEN, BASE
    portfile, TOKEN = sys.argv[1], sys.argv[2]
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    BASE = "http://127.0.0.1:%d" % srv.server_address[1]
    with open(portfile + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(portfile + ".tmp", portfile)
    srv.serve_forever()


if __name__ == "__main__":
    main()

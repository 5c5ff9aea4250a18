#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# t/docs-links.sh: the README and the manual (docs/, bench/README.md) point
# only at what exists: every relative link and image at a file, every
# #anchor at a heading of that page (as GitHub makes anchors); every
# script the README tells a user to run exists (and is executable when run
# by its path), every `make TARGET` is a target of the Makefile, and every
# `kfleet CMD` names a command kfleet has help for. Run by make check-unit.
B=${B:-build}
cd "$(dirname "$0")/.." || exit 1
exec python3 - "$B" <<'PY'
import os, re, subprocess, sys

B = sys.argv[1]
pages = ['README.md', 'bench/README.md'] + sorted(
    os.path.join('docs', f) for f in os.listdir('docs') if f.endswith('.md'))
bad = []

def prose(text):
    """text without its fenced code blocks and inline code"""
    text = re.sub(r'^```.*?^```', '', text, flags=re.S | re.M)
    return re.sub(r'`[^`\n]*`', '', text)

def anchors(path):
    seen, out, fence = {}, set(), False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            fence = not fence
            continue
        m = None if fence else re.match(r'^(#{1,6}) +(.*?) *#*$', line.rstrip('\n'))
        if not m:
            continue
        s = re.sub(r'[^\w\- ]', '', m.group(2).lower().replace('`', '')).replace(' ', '-')
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else '%s-%d' % (s, n))
    return out

for page in pages:
    text = open(page, encoding='utf-8').read()
    for target in re.findall(r'\]\(([^)\s]+)\)', prose(text)):
        if re.match(r'^[a-z]+:', target):
            continue          # http(s): no network here
        path, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not os.path.exists(dest):
            bad.append('%s: link to missing %s' % (page, target))
        elif anchor and (not dest.endswith('.md') or anchor not in anchors(dest)):
            bad.append('%s: link to missing anchor %s' % (page, target))

# what the README tells a user to run, in its code blocks
readme = open('README.md', encoding='utf-8').read()
make_targets = set(re.findall(r'^([a-zA-Z][\w.-]*):', open('Makefile').read(), re.M))
words = set()
for block in re.findall(r'^```\n(.*?)^```', readme, re.S | re.M):
    for line in block.splitlines():
        for cmd in re.split(r'&&|;', line.split('#')[0]):
            w = cmd.split()
            if not w:
                continue
            if w[0] == 'sh':
                if not os.path.isfile(w[1]):
                    bad.append('README.md: runs missing script %s' % w[1])
            elif w[0] == 'make':
                for t in [x for x in w[1:] if '=' not in x and not x.startswith('-')]:
                    if t not in make_targets:
                        bad.append('README.md: make %s: no such target' % t)
            elif '/' in w[0]:
                p = w[0]
                if p.startswith('build/'):
                    p = B + p[len('build'):]
                    if not os.path.exists(p):
                        bad.append('README.md: %s is not built (make)' % w[0])
                        continue
                if not os.access(p, os.X_OK):
                    bad.append('README.md: %s is not an executable file' % w[0])
                if os.path.basename(w[0]) == 'kfleet' and len(w) > 1:
                    words.add(w[1])
            elif w[0] == 'man' and '-l' in w:
                p = w[w.index('-l') + 1].replace('build/', B + '/', 1)
                if not os.path.exists(p):
                    bad.append('README.md: man -l %s: no such page (make man)' % w[w.index('-l') + 1])
# `kfleet CMD` in the README's text and blocks: a command with help
words |= set(re.findall(r'`kfleet ([a-z]+)', readme))
for w in sorted(words):
    r = subprocess.run([os.path.join(B, 'bin', 'kfleet'), 'help', w], capture_output=True)
    if r.returncode != 0:
        bad.append('README.md: kfleet %s: not a command' % w)

for b in bad:
    print('docs-links: ' + b, file=sys.stderr)
if not bad:
    print('docs-links: %d pages: every link, anchor, script and command is there' % len(pages))
sys.exit(1 if bad else 0)
PY

# SPDX-License-Identifier: GPL-2.0-only
# t/real/pw.py: what kfleet's tests do to a real patchwork's database, in
# one Python start each (t/real/patchwork.sh runs it with patchwork's
# manage.py environment):
#   setup LINKNAME LISTID TOKEN   a project and its maintainer, whose API
#                                 token is TOKEN; a user who maintains
#                                 nothing, whose token is TOKEN-nobody
#   mail LISTID MBOX...           every mail of each mbox, in order,
#                                 through patchwork's own parsemail
import mailbox
import os
import sys
import tempfile

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402

from patchwork.models import Project  # noqa: E402


def user(name, token):
    u = User.objects.create_user(name, name + '@kfleet.invalid', 'pw')
    Token.objects.create(user=u, key=token)
    return u


def setup(linkname, listid, token):
    p = Project.objects.create(linkname=linkname, name=linkname, listid=listid,
                               listemail=listid.replace('.', '@', 1))
    m = user('maintainer', token)
    m.profile.maintainer_projects.add(p)
    m.profile.save()
    user('nobody', token + '-nobody')


def mail(listid, paths):
    for path in paths:
        for msg in mailbox.mbox(path, create=False):
            with tempfile.NamedTemporaryFile(suffix='.eml') as f:
                f.write(msg.as_bytes(unixfrom=False))
                f.flush()
                call_command('parsemail', infile=f.name, list_id=listid)


if __name__ == '__main__':
    if sys.argv[1] == 'setup' and len(sys.argv) == 5:
        setup(*sys.argv[2:])
    elif sys.argv[1] == 'mail' and len(sys.argv) >= 4:
        mail(sys.argv[2], sys.argv[3:])
    else:
        sys.exit('usage: pw.py setup LINKNAME LISTID TOKEN | mail LISTID MBOX...')

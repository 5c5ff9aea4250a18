# SPDX-License-Identifier: GPL-2.0-only
# t/real/pw_settings.py: the settings real patchwork runs with in kfleet's
# tests (t/real/patchwork.sh): patchwork's own dev settings, DEBUG off (as
# a deployed patchwork answers), and a busy timeout on the SQLite file the
# server and parsemail both write.
from patchwork.settings.dev import *  # noqa: F401,F403

DEBUG = False
DATABASES['default']['OPTIONS'] = {'timeout': 30}  # noqa: F405
LOGGING = {'version': 1, 'disable_existing_loggers': False}

# SPDX-License-Identifier: GPL-2.0-only
# t/real/patchwork.sh: real patchwork (3.1.3, Django on SQLite) for
# kfleet's end-to-end tests, sourced after t/lib.sh. The sources are not
# kfleet's: they are found at $KFLEET_PATCHWORK, by default
# $KFLEET_VENDOR/patchwork-3.1.3 with KFLEET_VENDOR=../shared/vendor from
# the project root (../shared/vendor/README.md). Where they are absent,
# pw_real_ok says so and the test skips only the checks that need them.
#   pw_real_ok                     0 when real patchwork can run; else 1,
#                                  and $PW_REAL_WHY says why
#   pw_real_start LINK LISTID TOKEN  a fresh database (a copy of a
#                                  migrated template), a project, its
#                                  maintainer with API token TOKEN (and a
#                                  non-maintainer, TOKEN-nobody), the
#                                  server on a loopback port: $PW_URL
#   pw_real_mail LISTID MBOX...    delivers each mail with parsemail
#   pw_real_stop                   stops the server (run at exit too)
# migrate takes ~5 s on this machine: it runs once into a template file
# ($KFLEET_PW_TEMPLATE, kept between tests and runs, keyed on patchwork's
# migrations) that each test copies in a few ms.

KFLEET_VENDOR=${KFLEET_VENDOR:-$TOP/../shared/vendor}
KFLEET_PATCHWORK=${KFLEET_PATCHWORK:-$KFLEET_VENDOR/patchwork-3.1.3}
PW_PY=/usr/bin/python3
PW_PID=

pw_real_ok() {
	PW_REAL_WHY=
	if [ ! -f "$KFLEET_PATCHWORK/manage.py" ]; then
		PW_REAL_WHY="no patchwork sources at '$KFLEET_PATCHWORK' (set KFLEET_VENDOR or KFLEET_PATCHWORK)"
	elif ! "$PW_PY" -c 'import django, rest_framework, django_filters' 2>/dev/null; then
		PW_REAL_WHY="python3-django, python3-djangorestframework or python3-django-filters is not installed (.ci/deps.sh)"
	fi
	[ -z "$PW_REAL_WHY" ]
}

# pw_manage ARGS: patchwork's manage.py on this test's database
pw_manage() {
	(cd "$KFLEET_PATCHWORK" &&
		PYTHONPATH="$TOP/t/real:$KFLEET_PATCHWORK" DJANGO_SETTINGS_MODULE=pw_settings DATABASE_TYPE=sqlite3 \
		DATABASE_NAME="${PW_DB:?}" "$PW_PY" "$@")
}

# pw_template: the migrated database with patchwork's default tags and
# states, built once (under a lock: tests may run at once)
pw_template() {
	key=$(ls "$KFLEET_PATCHWORK/patchwork/migrations" | cat - "$TOP/t/real/pw_settings.py" | sha256sum | cut -c1-12)
	KFLEET_PW_TEMPLATE=${KFLEET_PW_TEMPLATE:-/tmp/kfleet-pw-template-$(id -u)-$key.db}
	[ -s "$KFLEET_PW_TEMPLATE" ] && return 0
	(
		flock 9
		[ -s "$KFLEET_PW_TEMPLATE" ] && exit 0
		PW_DB=$KFLEET_PW_TEMPLATE.tmp$$
		t0=$(date +%s%N)
		pw_manage manage.py migrate --noinput >"$T/pw-migrate.log" 2>&1 &&
			pw_manage manage.py loaddata default_tags default_states >>"$T/pw-migrate.log" 2>&1 ||
			{ cat "$T/pw-migrate.log" >&2; rm -f "$PW_DB"; exit 1; }
		mv "$PW_DB" "$KFLEET_PW_TEMPLATE"
		echo "# patchwork: template database migrated in $((($(date +%s%N) - t0) / 1000000)) ms" >&2
	) 9>"${KFLEET_PW_TEMPLATE}.lock"
}

pw_real_start() {
	mkdir -p "$T/pw"
	PW_DB=$T/pw/pw.db
	pw_template || return 1
	cp "$KFLEET_PW_TEMPLATE" "$PW_DB"
	pw_manage "$TOP/t/real/pw.py" setup "$1" "$2" "$3" >>"$T/pw/setup.log" 2>&1 ||
		{ cat "$T/pw/setup.log" >&2; return 1; }
	port=$("$PW_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	pw_manage manage.py runserver --noreload 127.0.0.1:"$port" >>"$T/pw/server.log" 2>&1 &
	PW_PID=$!
	trap 'pw_real_stop; kf_cleanup' EXIT
	PW_URL=http://127.0.0.1:$port
	for _ in $(seq 1 100); do
		curl -sf -o /dev/null "$PW_URL/api/1.2/" && return 0
		kill -0 "$PW_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "patchwork did not start:" >&2; tail -n 20 "$T/pw/server.log" >&2
	return 1
}

pw_real_mail() {
	l=$1; shift
	pw_manage "$TOP/t/real/pw.py" mail "$l" "$@" >>"$T/pw/mail.log" 2>&1 ||
		{ tail -n 20 "$T/pw/mail.log" >&2; return 1; }
}

pw_real_stop() {
	[ -n "$PW_PID" ] && kill "$PW_PID" 2>/dev/null && wait "$PW_PID" 2>/dev/null
	PW_PID=
}

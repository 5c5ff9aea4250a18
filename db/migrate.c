/* migrate.c: the schema, as numbered steps. db_open() runs every step above
 * the file's PRAGMA user_version, each in its own transaction. A step, once
 * released, never changes: new needs get a new step at the end. */
#include "db/dbint.h"

const char *const db_migrations[] = {
	/* 1: hosts, kernels, runs (the queue), attempts, results, samples */
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE hosts ("
	"  id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, uri TEXT NOT NULL,"
	"  accel TEXT, qemu_version TEXT, libvirt_version TEXT,"
	"  max_vcpus INTEGER, memory_kb INTEGER, updated_at INTEGER NOT NULL);"
	"CREATE TABLE kernels ("
	"  id INTEGER PRIMARY KEY,"
	"  source TEXT NOT NULL CHECK (source IN ('imported','built')),"
	"  path TEXT NOT NULL, arch TEXT NOT NULL, sha256 TEXT NOT NULL,"
	"  tree TEXT, commit_id TEXT, config_hash TEXT, release TEXT,"
	"  created_at INTEGER NOT NULL, UNIQUE (path, sha256));"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
	"  request_id INTEGER, job TEXT,"
	"  arch TEXT NOT NULL, vcpus INTEGER NOT NULL CHECK (vcpus > 0),"
	"  memory_mb INTEGER NOT NULL CHECK (memory_mb > 0),"
	"  timeout_s INTEGER NOT NULL CHECK (timeout_s > 0), command TEXT NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN ('queued','running','done')),"
	"  outcome TEXT, detail TEXT, splat TEXT,"
	"  attempt INTEGER NOT NULL DEFAULT 0, max_attempts INTEGER NOT NULL DEFAULT 2,"
	"  host_id INTEGER REFERENCES hosts(id), accel TEXT, machine TEXT,"
	"  qemu_version TEXT, libvirt_version TEXT, domain TEXT,"
	"  queued_at INTEGER NOT NULL, started_at INTEGER, booted_at INTEGER, ended_at INTEGER,"
	"  exit_code INTEGER, guest_release TEXT, guest_nproc INTEGER, guest_mem_kb INTEGER,"
	"  run_dir TEXT);"
	"CREATE INDEX runs_state ON runs (state, id);"
	"CREATE TABLE attempts ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id), n INTEGER NOT NULL,"
	"  host_id INTEGER REFERENCES hosts(id), domain TEXT,"
	"  started_at INTEGER NOT NULL, ended_at INTEGER, outcome TEXT, detail TEXT,"
	"  PRIMARY KEY (run_id, n));"
	"CREATE TABLE results ("
	"  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  path TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN"
	"    ('pass','fail','skip','xfail','error','timeout','missing')),"
	"  duration_ms INTEGER, detail TEXT);"
	"CREATE INDEX results_run ON results (run_id, path);"
	"CREATE TABLE samples ("
	"  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  metric TEXT NOT NULL, value REAL NOT NULL, unit TEXT,"
	"  seq INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX samples_run ON samples (run_id, metric);",
	/* 2: whether a host is in placement, and why not */
	"ALTER TABLE hosts ADD COLUMN healthy INTEGER NOT NULL DEFAULT 1;"
	"ALTER TABLE hosts ADD COLUMN health_detail TEXT;",
	/* 3: guest CPU topology (sockets:cores:threads) and NUMA nodes */
	"ALTER TABLE runs ADD COLUMN topology TEXT;"
	"ALTER TABLE runs ADD COLUMN numa_nodes INTEGER NOT NULL DEFAULT 1;",
	/* 4: requests: a base and a patched kernel, repeats interleaved */
	"CREATE TABLE requests ("
	"  id INTEGER PRIMARY KEY, created_at INTEGER NOT NULL,"
	"  base_kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
	"  patched_kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
	"  job TEXT, repeats INTEGER NOT NULL);"
	"CREATE INDEX runs_request ON runs (request_id, id);"
	"CREATE INDEX runs_kernel_job ON runs (kernel_id, job, state);",
};

const int db_migration_count = (int)(sizeof(db_migrations) / sizeof(db_migrations[0]));

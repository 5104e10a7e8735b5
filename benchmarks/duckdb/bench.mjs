// benchmarks/duckdb/bench.mjs - the DuckDB peer of benchmarks/dmap.sh.
//
// Runs the dmap benchmark queries in-process through @duckdb/node-api and
// times them inside node (node start-up, module load, instance creation and
// result conversion to JS are NOT in the timings; reading and parsing the
// file is, since read_csv re-reads it on every run).
//
//   node bench.mjs --file FILE [--runs N] [--warmup N] [--threads N]
//                  [--outdir DIR] [--queries q50,qmany,qdistinct,qtop] [--print-sql]
//
// For each query it prints one line on stdout:
//   RESULT id=duckdb_q50 rows=50 median_s=0.180 min_s=0.170 max_s=0.200 runs=5 times=...
// and writes DIR/duckdb_<query>.csv: the result in the benchmark's canonical
// form (keys..., count, avg with 6 decimals; unsorted, no header; qdistinct:
// the count; qtop: dmap's top cell, "host:count" joined by ',').
// Progress and the DuckDB version go to stderr.
import { DuckDBInstance, version } from '@duckdb/node-api';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = { runs: 5, warmup: 1, threads: 2, outdir: null, queries: 'q50,qmany', file: null, printSql: false };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
        if (i + 1 >= argv.length) usage(`${a} needs a value`);
        return argv[++i];
    };
    switch (a) {
    case '--file': args.file = next(); break;
    case '--runs': args.runs = Number(next()); break;
    case '--warmup': args.warmup = Number(next()); break;
    case '--threads': args.threads = Number(next()); break;
    case '--outdir': args.outdir = next(); break;
    case '--queries': args.queries = next(); break;
    case '--print-sql': args.printSql = true; break;
    default: usage(`unknown argument: ${a}`);
    }
}
function usage(msg) {
    process.stderr.write(`bench.mjs: ${msg}\nusage: node bench.mjs --file FILE [--runs N] [--warmup N] [--threads N] [--outdir DIR] [--queries q50,qmany] [--print-sql]\n`);
    process.exit(2);
}
if (!args.printSql && !args.file) usage('--file is required');
if (!(args.runs >= 1) || !(args.warmup >= 0) || !(args.threads >= 1)) usage('bad --runs, --warmup or --threads');

// ------------------------------------------------------------------ SQL
// The file is read with DuckDB's CSV reader, delimiter '|', no header, no
// quoting, the 13 columns of a MAPREDUCE:STATS line declared up front (no
// sniffing). Only c5 ($goroutines) is typed; projection pushdown means the
// reader materialises just c1 (time), c5, c9 (table) and c10..c12.
const sqlQuote = (s) => `'${String(s).replace(/'/g, "''")}'`;
const COLUMNS = '{' + Array.from({ length: 13 }, (_, i) => `'c${i}': '${i === 5 ? 'BIGINT' : 'VARCHAR'}'`).join(', ') + '}';
const source = (file) =>
    `read_csv(${sqlQuote(file)}, delim='|', header=false, auto_detect=false, quote='', escape='', columns=${COLUMNS})`;
// hostname=... comes in any of c10..c12 (Go map order): pick the column that
// starts with it and group on that whole 'hostname=hostNN' string, stripping
// the 9-byte prefix only once per group afterwards. This measured fastest of
// CASE/starts_with (this), CASE with substr per row, LIKE, first-character
// tests and regexp_extract over concat_ws (about 1.7x slower).
const HOSTKV = `CASE WHEN starts_with(c10, 'hostname=') THEN c10 WHEN starts_with(c11, 'hostname=') THEN c11 WHEN starts_with(c12, 'hostname=') THEN c12 END`;
const QUERIES = {
    // from STATS select count($line),avg($goroutines) group by hostname
    q50: {
        keys: 1,
        sql: (f) => `SELECT substr(h, 10) AS hostname, count(*) AS cnt, avg(c5) AS avg_goroutines
FROM (SELECT ${HOSTKV} AS h, c5 FROM ${source(f)} WHERE c9 = 'MAPREDUCE:STATS')
GROUP BY h`,
    },
    // from STATS select count($line),avg($goroutines) group by $time, hostname
    qmany: {
        keys: 2,
        sql: (f) => `SELECT t AS "time", substr(h, 10) AS hostname, count(*) AS cnt, avg(c5) AS avg_goroutines
FROM (SELECT c1 AS t, ${HOSTKV} AS h, c5 FROM ${source(f)} WHERE c9 = 'MAPREDUCE:STATS')
GROUP BY t, h`,
    },
    // from STATS select count(distinct hostname) (issue 18)
    qdistinct: {
        csv: (rows) => rows.map((r) => String(r[0])),
        sql: (f) => `SELECT count(DISTINCT h) AS n
FROM (SELECT ${HOSTKV} AS h FROM ${source(f)} WHERE c9 = 'MAPREDUCE:STATS')`,
    },
    // from STATS select top(hostname, 10) (issue 18): the 10 most frequent,
    // ties in byte order, as dmap's one cell "host:count,..."
    qtop: {
        csv: (rows) => [rows.map((r) => `${r[0]}:${r[1]}`).join(',')],
        sql: (f) => `SELECT substr(h, 10) AS hostname, count(*) AS cnt
FROM (SELECT ${HOSTKV} AS h FROM ${source(f)} WHERE c9 = 'MAPREDUCE:STATS' AND h IS NOT NULL)
GROUP BY h ORDER BY cnt DESC, h LIMIT 10`,
    },
};
const wanted = args.queries.split(',').filter(Boolean);
for (const q of wanted) if (!QUERIES[q]) usage(`unknown query ${q} (known: ${Object.keys(QUERIES).join(', ')})`);

if (args.printSql) {
    process.stdout.write(`SET threads=${args.threads};\n`);
    for (const q of wanted) process.stdout.write(`-- ${q}\n${QUERIES[q].sql(args.file ?? 'FILE')};\n`);
    process.exit(0);
}

// ------------------------------------------------------------------ run
const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const n = s.length;
    return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

const instance = await DuckDBInstance.create(':memory:', { threads: String(args.threads) });
const con = await instance.connect();
await con.run(`SET threads=${args.threads}`);
const thr = (await (await con.run("SELECT current_setting('threads')")).getRowsJS())[0][0];
process.stderr.write(`duckdb ${version()} via @duckdb/node-api, threads=${thr}\n`);
console.log(`INFO duckdb_version=${version()} threads=${thr}`);

for (const q of wanted) {
    const sql = QUERIES[q].sql(args.file);
    let result = null;
    for (let i = 0; i < args.warmup; i++) result = await con.run(sql);
    const times = [];
    for (let i = 0; i < args.runs; i++) {
        result = null; // let the previous materialized result go first
        const t0 = performance.now();
        // run() executes the query to completion and materializes the whole
        // result inside DuckDB (all groups); converting it to JS is not timed
        result = await con.run(sql);
        times.push((performance.now() - t0) / 1000);
    }
    const rows = await result.getRowsJS();
    if (args.outdir) {
        const k = QUERIES[q].keys;
        const lines = QUERIES[q].csv ? QUERIES[q].csv(rows)
            : rows.map((r) => [...r.slice(0, k).map(String), String(r[k]), Number(r[k + 1]).toFixed(6)].join(','));
        writeFileSync(join(args.outdir, `duckdb_${q}.csv`), lines.length ? lines.join('\n') + '\n' : '');
    }
    const f = (x) => x.toFixed(6);
    console.log(`RESULT id=duckdb_${q} rows=${rows.length} median_s=${f(median(times))} min_s=${f(Math.min(...times))} ` +
        `max_s=${f(Math.max(...times))} runs=${times.length} times=${times.map(f).join(',')}`);
}
console.log(`INFO max_rss_kib=${process.resourceUsage().maxRSS}`);
con.closeSync();

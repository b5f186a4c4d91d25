"""Loading a large qrels.toml: TOML parsing against the project's own validation, and the
candidates that could make the parse cheaper without leaving TOML as the format users edit.

    python benchmarks/bench_loading.py                     # 1,000 queries x 1,000 docs = 1M pairs
    python benchmarks/bench_loading.py --queries 100 --documents 100 --repeat 1   # quick

Measures (best of --repeat, one process, on a seeded synthetic protocol from synth.py):
- tomllib.loads, the project's reader of its own layout (core/files/toml_layout.py, falling back
  to tomllib where it answers None: what read_toml does), and each installed candidate (toml_rs with TOML 1.0 and
  its default 1.1, rtoml) on the same text;
- the project's validation of the parsed dict (files.read_qrels_file minus the parse; the
  exhaustive check is the one Protocol() makes, load_protocol runs it once), and the rest of
  load_protocol;
- load_protocol with the fast path (as shipped) and with tomllib only, in the same run;
- a verified parse cache: sha256 of the file's bytes (the key) + json.loads of tomllib's dict.

Then checks each candidate honestly: identical dicts to tomllib on the valid files (types
compared strictly, so 1 and true differ), and the same accept/reject decision on a corpus of
invalid and TOML-1.1-only documents. A candidate that ever accepts what tomllib rejects would let
a broken qrels file through, so it is reported as not a drop-in.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tomli_w  # noqa: E402
import tomllib  # noqa: E402

from benchmarks.synth import SynthSpec, make_data, qrels_toml, realistic_ids, write_protocol  # noqa: E402
from rankeval_tui.core.files import toml_layout  # noqa: E402

FAST_PATH = "canonical layout (toml_layout, else tomllib)"

# Documents every TOML 1.0 parser must reject (tomllib does), plus TOML 1.1-only syntax that a
# 1.0 parser (tomllib on Python 3.11-3.13) rejects: accepting them would make a file valid on
# one machine and invalid on another.
INVALID = {
    "duplicate key": "[qrels.q1]\nd1 = 0\nd1 = 1\n",
    "duplicate table": "[qrels.q1]\nd1 = 0\n[qrels.q1]\nd2 = 1\n",
    "key redefined as table": "[qrels]\nq1 = 1\n[qrels.q1]\nd1 = 0\n",
    "dotted key extends inline table": "a = {b = 1}\na.c = 2\n",
    "table extends inline table": "[qrels]\nq1 = {d1 = 0}\n[qrels.q1]\nd2 = 1\n",
    "leading zero": "[qrels.q1]\nd1 = 01\n",
    "trailing underscore": "[qrels.q1]\nd1 = 1_\n",
    "bare word value": "[qrels.q1]\nd1 = yes\n",
    "capitalised bool": "[qrels.q1]\nd1 = True\n",
    "missing value": "[qrels.q1]\nd1 =\n",
    "two pairs on a line": "[qrels.q1]\nd1 = 0 d2 = 1\n",
    "unterminated string": '[notes.q1]\nd1 = "oops\n',
    "control char in string": '[notes.q1]\nd1 = "a\x01b"\n',
    "bad escape": '[notes.q1]\nd1 = "a\\qb"\n',
    "bare CR": "[qrels.q1]\rd1 = 0\n",
    "unclosed header": "[qrels.q1\nd1 = 0\n",
    "empty bare key": "[qrels.q1]\n = 0\n",
    "array of tables over table": "[qrels]\n[[qrels]]\n",
    "integer beyond 64 bits": "a = 99999999999999999999\n",
    "1.1: newline in inline table": "a = {\n  b = 1\n}\n",
    "1.1: trailing comma in inline table": "a = {b = 1,}\n",
    "1.1: \\e escape": 'a = "\\e"\n',
    "1.1: \\x escape": 'a = "\\x41"\n',
    "1.1: time without seconds": "a = 07:32\n",
}


# Hostile documents, each parsed in a child process so a crash shows as a crash: the project's
# loaders must turn every bad file into one error line, never a segfault.
HOSTILE = {
    "100,000 nested arrays": "'a = ' + '[' * 100_000 + ']' * 100_000",
    "100,000 nested inline tables": "'a = ' + '{b = ' * 100_000 + '1' + '}' * 100_000",
    "5,000-digit integer": "'a = 1' + '0' * 5000",
}
PARSE_IN_CHILD = {
    "tomllib": "import tomllib; tomllib.loads(DOC)",
    FAST_PATH: "from rankeval_tui.core.files import toml_layout; import tomllib\n"
    "    if toml_layout.read(DOC) is None: tomllib.loads(DOC)",
    "toml_rs (1.0)": "import toml_rs; toml_rs.loads(DOC, toml_version='1.0.0')",
    "toml_rs (default)": "import toml_rs; toml_rs.loads(DOC)",
    "rtoml": "import rtoml; rtoml.loads(DOC)",
}


def child_decision(parser_name: str, expression: str) -> str:
    import subprocess

    code = (
        f"DOC = {expression}\ntry:\n    {PARSE_IN_CHILD[parser_name]}\nexcept Exception as e:\n"
        "    print('rejects', type(e).__name__)\nelse:\n    print('accepts')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if proc.returncode < 0:
        return f"CRASH (signal {-proc.returncode})"
    if proc.returncode != 0:
        return f"CRASH (exit {proc.returncode})"
    return proc.stdout.strip()


def strict_equal(a: Any, b: Any) -> bool:
    """Equality that tells 1 from true and 1 from 1.0, recursively, and keeps key order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    return a == b


def fast_path(text: str) -> dict[str, Any]:
    """What read_toml does: the fast path's dict, or tomllib where it answers None."""
    reading = toml_layout.read(text)
    return tomllib.loads(text) if reading is None else reading.data


def parsers() -> dict[str, Callable[[str], dict[str, Any]]]:
    found: dict[str, Callable[[str], dict[str, Any]]] = {"tomllib": tomllib.loads, FAST_PATH: fast_path}
    try:
        import toml_rs

        found["toml_rs (1.0)"] = lambda text: toml_rs.loads(text, toml_version="1.0.0")
        found["toml_rs (default)"] = toml_rs.loads
    except ImportError:
        print("toml_rs not installed (pip install toml-rs): skipped")
    try:
        import rtoml

        found["rtoml"] = rtoml.loads
    except ImportError:
        print("rtoml not installed (pip install rtoml): skipped")
    return found


def best(repeat: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    """The best of ``repeat`` calls, each with ``re``'s cache of compiled patterns emptied first:
    a qrels template is compiled from the file's own text, once per process, and a repeat that
    found it compiled would leave that cost out (it did until the sixth round)."""
    times, result = [], None
    for _ in range(repeat):
        re.purge()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def decision(parse: Callable[[str], Any], text: str) -> tuple[bool, Any]:
    """(accepted, parsed dict or None); any exception is a rejection (each library has its own)."""
    try:
        return True, parse(text)
    except Exception:
        return False, None


def layout_variants(qrels: dict[str, dict[str, int]], spec: SynthSpec) -> dict[str, str]:
    """The same labels in every layout a person or another tool may write (issue 13): each must
    load within 1.5x of the bare layout on the same reader (no cliff); the qrels-shaped ones,
    read by ``toml_layout``, the rare ones (a float, a dotted key) by tomllib."""
    bare = qrels_toml(qrels)
    docs, queries = realistic_ids(spec)
    renamed = {
        new_q: dict(zip(docs, row.values())) for new_q, row in zip(queries, qrels.values())
    }  # the same labels under realistic IDs (tomli-w quotes them)
    variants = {
        "bare keys (tomli-w)": bare,
        'quoted keys ([qrels."q1"], "d1" = 0)': qrels_toml(qrels, quote_all=True),
        "realistic IDs (q:1001, msmarco_v2.1_doc_00_12345)": qrels_toml(renamed),
        "literal keys ('d1' = 0)": qrels_toml(qrels, quote_all=True).replace('"', "'"),
        "compact (d1=0)": bare.replace(" = ", "="),
        "one space (d1 =0)": bare.replace(" = ", " ="),
        "tabs and indents (\\td1\\t=\\t0)": bare.replace("\nd", "\n\td").replace(" = ", "\t=\t"),
        "CRLF line ends": bare.replace("\n", "\r\n"),
        "comment on every 0 line (d1 = 0 # ok)": bare.replace(" = 0\n", " = 0 # ok\n"),
        "blank line and comment after every 0 pair": bare.replace(" = 0\n", " = 0\n\n# seen\n"),
        "CRLF, comments and blank lines": bare.replace(" = 0\n", " = 0 # ok\n\n").replace("\n", "\r\n"),
        "comment after each header ([qrels.q1]  # note)": bare.replace("]\n", "]  # note\n"),
        'dotted quoted headers ([qrels."a.b"])': bare.replace("[qrels.", '[qrels."x.').replace("]\n", '"]\n'),
    }
    variants["rare: a float in every table"] = bare.replace("]\n", "]\nscore = 0.5\n")
    variants["rare: a dotted key in every table"] = bare.replace("]\n", "]\nmeta.seen = 1\n")
    variants['rare: quoted, spaced dotted keys ("x.y" . z = 0)'] = bare.replace("]\n", ']\n"x.y" . z = 0\nm . n = 1\n')
    return variants


def tables_to_tomllib(text: str) -> str:
    """What of ``text`` tomllib reads: none, some top-level tables, or all of it."""
    reading = toml_layout.read(text)
    return "all" if reading is None else str(len(reading.by_tomllib))


def bench_layouts(qrels: dict[str, dict[str, int]], spec: SynthSpec, repeat: int) -> None:
    variants = layout_variants(qrels, spec)
    found = parsers()
    bare = variants["bare keys (tomli-w)"]
    base = best(repeat, lambda: fast_path(bare))[0]
    bare_megabytes = len(bare.encode()) / 1e6
    print(
        f"{'layout (same labels)':<52} {'MB':>5} {'fast path s':>11} {'MB/s':>5} {'read by':>8} {'to tomllib':>10} "
        f"{'vs base':>7} {'per MB':>7} {'tomllib s':>9} {'rtoml s':>7}  equal"
    )
    for label, text in variants.items():
        seconds, parsed = best(repeat, lambda text=text: fast_path(text))
        taken = toml_layout.read(text) is not None
        reader = "layout" if taken else "tomllib"
        tl_seconds, expected = best(1, lambda text=text: tomllib.loads(text))
        rtoml_seconds = best(1, lambda text=text: found["rtoml"](text))[0] if "rtoml" in found else float("nan")
        same = "yes" if strict_equal(parsed, expected) else "NO"
        megabytes = len(text.encode()) / 1e6
        print(
            f"{label:<52} {megabytes:>5.1f} {seconds:>11.3f} {megabytes / seconds:>5.0f} {reader:>8} "
            f"{tables_to_tomllib(text):>10} {seconds / base:>6.2f}x "
            f"{seconds / megabytes / (base / bare_megabytes):>6.2f}x {tl_seconds:>9.3f} {rtoml_seconds:>7.3f}  "
            f"{same}{'' if taken else ' (whole file to tomllib)'}"
        )
    print(
        f"(vs base: against the bare file ({base:.3f} s); per MB: the same per megabyte, for layouts whose "
        f"file is longer or shorter; to tomllib: the top-level tables toml_layout hands it, or all)"
    )
    print()


def protocol_variants(documents: int) -> dict[str, str]:
    """A protocol.toml of ``documents`` documents (realistic IDs, a title and a text of six lines
    each, seeded) and 200 queries, in the layouts a tool or a person may write its strings:
    each must load within 1.5x of tomli-w's own (single-line strings with escaped newlines)."""
    rng = random.Random(0)
    words = "the of a download export sync retry theme file settings click choose save copy text csv".split()
    data: dict[str, Any] = {"protocol": {"name": "bench", "k": 10, "split": "test", "relevance": "1 if it answers"}}
    data["documents"] = {
        f"msmarco_v2.1_doc_00_{i}": {
            "title": f"Doc {i}: {' '.join(rng.choices(words, k=3))}",
            "text": "\n".join(" ".join(rng.choices(words, k=rng.randint(6, 14))) for _ in range(6)),
        }
        for i in range(documents)
    }
    data["queries"] = {
        f"q:{1001 + i}": {"text": " ".join(rng.choices(words, k=6)), "split": "test"} for i in range(200)
    }
    single = tomli_w.dumps(data)
    multi = tomli_w.dumps(data, multiline_strings=True)
    literal = multi.replace('text = """', "text = '''").replace('"""\n', "'''\n")
    return {
        "tomli-w (single-line strings)": single,
        "tomli-w multiline_strings=True": multi,
        "literal multi-line strings (''')": literal,
        "multi-line, CRLF": multi.replace("\n", "\r\n"),
        "multi-line, line-ending backslashes": "\n".join(
            line if " = " in line else line.replace(" sync ", " sync \\\n    ") for line in multi.split("\n")
        ),  # inside the texts only (a backslash ends a line only in a multi-line string)
        "multi-line, a comment after each header": multi.replace('"]\n', '"]  # from the export\n'),
    }


def chunk_map_variants(chunks: int) -> dict[str, str]:
    """A chunk map of ``chunks`` chunks (``[chunk_to_doc]``, four chunks a document, realistic
    IDs) in the layouts a tool or a person may write it, against tomli-w's own."""
    mapping = {f"msmarco_v2.1_doc_00_{i // 4}#{i % 4}": f"msmarco_v2.1_doc_00_{i // 4}" for i in range(chunks)}
    quoted = tomli_w.dumps({"chunk_to_doc": mapping})
    literal = quoted.replace('"', "'")
    return {
        "tomli-w (quoted keys)": quoted,
        "literal strings ('a#0' = 'a')": literal,
        'compact ("a#0"="a")': quoted.replace(" = ", "="),
        "CRLF line ends": quoted.replace("\n", "\r\n"),
        "a comment on every line": quoted.replace('"\n', '"  # chunk\n'),
        "a blank line after each document's chunks": "".join(
            line + "\n" * ('#3"' in line) for line in quoted.splitlines(keepends=True)
        ),
    }


def bench_other_layouts(title: str, variants: dict[str, str], repeat: int) -> None:
    """One table: each layout's time on the fast path against the first layout's, and tomllib's."""
    base_text = next(iter(variants.values()))
    base = best(repeat, lambda: fast_path(base_text))[0]
    print(f"{title}; best of {repeat}\n")
    print(
        f"{'layout (same data)':<52} {'MB':>5} {'fast path s':>11} {'vs base':>7} {'to tomllib':>10} {'tomllib s':>9}  equal"
    )
    for label, text in variants.items():
        seconds, parsed = best(repeat, lambda text=text: fast_path(text))
        tl_seconds, expected = best(1, lambda text=text: tomllib.loads(text))
        same = "yes" if strict_equal(parsed, expected) else "NO"
        print(
            f"{label:<52} {len(text.encode()) / 1e6:>5.1f} {seconds:>11.3f} {seconds / base:>6.2f}x "
            f"{tables_to_tomllib(text):>10} {tl_seconds:>9.3f}  {same}"
        )
    print(f"(vs base: against the first row, {base:.3f} s)\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--layouts-only", action="store_true", help="only the tables of qrels and protocol layouts")
    parser.add_argument("--protocol-documents", type=int, default=20_000, help="documents in the protocol.toml layouts")
    parser.add_argument("--chunks", type=int, default=200_000, help="chunks in the chunk map layouts")
    args = parser.parse_args()

    from rankeval_tui.core import files
    from rankeval_tui.core.evaluation.protocol import Protocol, check_qrels

    with tempfile.TemporaryDirectory() as tmp:
        spec = SynthSpec(args.queries, args.documents, 1, seed=0, runs=())
        data = make_data(spec)
        if args.layouts_only:
            print(f"qrels.toml: {args.queries * args.documents:,} pairs in each layout; best of {args.repeat}\n")
            bench_layouts(data.qrels, spec, args.repeat)
            title = f"protocol.toml: {args.protocol_documents:,} documents with 6-line texts, 200 queries"
            bench_other_layouts(title, protocol_variants(args.protocol_documents), args.repeat)
            title = f"chunk_map.toml: {args.chunks:,} chunks of {args.chunks // 4:,} documents"
            bench_other_layouts(title, chunk_map_variants(args.chunks), args.repeat)
            return 0
        paths = write_protocol(Path(tmp) / "p", data)
        qrels = data.qrels
        del data
        raw = paths.qrels_toml.read_bytes()
        text = raw.decode("utf-8")
        pairs = args.queries * args.documents
        print(f"qrels.toml: {pairs:,} pairs, {len(raw) / 1e6:.1f} MB; best of {args.repeat}\n")

        bench_layouts(qrels, spec, args.repeat)
        del qrels
        found = parsers()
        timings: dict[str, float] = {}
        results: dict[str, Any] = {}
        for name, parse in found.items():
            timings[name], results[name] = best(args.repeat, lambda parse=parse: parse(text))
        reference = results["tomllib"]

        definition = files.load_definition(paths.directory)
        t_read, _ = best(args.repeat, lambda: files.read_qrels_file(paths.qrels_toml, definition))
        gc.collect()
        t_validate, labels = best(
            args.repeat, lambda: files.pair_tables(reference["qrels"], "qrels", definition, paths.qrels_toml)
        )
        t_check, _ = best(args.repeat, lambda: check_qrels(definition, labels, file=paths.qrels_toml))
        t_protocol, _ = best(args.repeat, lambda: Protocol(definition, labels))
        t_def, _ = best(args.repeat, lambda: files.load_definition(paths.directory))
        t_total, protocol = best(args.repeat, lambda: files.load_protocol(paths.directory))
        with mock.patch.object(toml_layout, "read", lambda text: None):  # read_toml -> tomllib only
            t_total_tomllib, _ = best(args.repeat, lambda: files.load_protocol(paths.directory))
        t_hash, _ = best(1, lambda: protocol.protocol_sha256)

        cached = json.dumps(reference, ensure_ascii=False, separators=(",", ":"))
        t_sha, _ = best(args.repeat, lambda: hashlib.sha256(raw).hexdigest())
        t_cache, from_cache = best(args.repeat, lambda: json.loads(cached))
        t_dump, _ = best(1, lambda: json.dumps(reference, ensure_ascii=False, separators=(",", ":")))

        tl = timings["tomllib"]
        taken = {
            name: toml_layout.read(sample) is not None
            for name, sample in (
                ("qrels.toml", text),
                ("protocol.toml", (paths.directory / "protocol.toml").read_text("utf-8")),
            )
        }
        print(
            "fast path taken (not None) on the synthetic "
            + ", ".join(f"{name}: {'yes' if ok else 'NO'}" for name, ok in taken.items())
            + "\n"
        )
        print(f"{'step':<46} {'seconds':>8} {'vs tomllib':>10}")
        for name, seconds in timings.items():
            print(f"{'parse: ' + name:<46} {seconds:>8.3f} {seconds / tl:>9.2f}x")
        rows = [
            ("read_qrels_file (parse + validation)", t_read),
            ("validation alone (the two rows below)", t_validate + t_check),
            ("  of which pair_tables (IDs known, copy)", t_validate),
            ("  of which check_qrels (exhaustive, 0/1)", t_check),
            ("Protocol() = check_qrels, once per load", t_protocol),
            ("load_definition (protocol.toml)", t_def),
            ("load_protocol total (fast path, as shipped)", t_total),
            ("load_protocol total (tomllib only)", t_total_tomllib),
            ("protocol hash, once per protocol", t_hash),
            ("parse cache: sha256 of the bytes (the key)", t_sha),
            ("parse cache: json.loads of tomllib's dict", t_cache),
            ("parse cache: hit = key + load", t_sha + t_cache),
            ("parse cache: miss adds json.dumps (+ write)", t_dump),
        ]
        for label, seconds in rows:
            print(f"{label:<46} {seconds:>8.3f} {seconds / tl:>9.2f}x")
        fp = timings[FAST_PATH]
        print(f"\nTOML parse share of load_protocol: tomllib {tl / t_total_tomllib:.0%}, fast path {fp / t_total:.0%}")
        print(f"load_protocol: {t_total_tomllib / t_total:.1f}x faster with the fast path; parse {tl / fp:.1f}x faster")

        print("\nvalid files: identical to tomllib (strict types and key order)?")
        samples = {
            "synthetic qrels.toml": text,
            "synthetic protocol.toml": (paths.directory / "protocol.toml").read_text("utf-8"),
        }
        demo = ROOT / "rankeval_tui" / "demo" / "help-docs-zh"
        for path in sorted(demo.rglob("*.toml")):
            samples[str(path.relative_to(ROOT))] = path.read_text("utf-8")
        samples["cache round trip (json)"] = None  # type: ignore[assignment]
        verdict: dict[str, bool] = {name: True for name in found if name != "tomllib"}
        for label, sample in samples.items():
            if sample is None:
                print(f"  {label:<44} {'same' if strict_equal(reference, from_cache) else 'DIFFERENT'}")
                continue
            expected = reference if sample is text else tomllib.loads(sample)
            cells = []
            for name, parse in found.items():
                if name == "tomllib":
                    continue
                same = strict_equal(expected, results[name] if sample is text else parse(sample))
                verdict[name] &= same
                cells.append(f"{name}: {'same' if same else 'DIFFERENT'}")
            print(f"  {label:<44} " + "; ".join(cells))

        print("\ninvalid or edge documents: same decision (and value) as tomllib?")
        for label, doc in INVALID.items():
            decisions = {name: decision(parse, doc) for name, parse in found.items()}
            reference_accepts, reference_value = decisions.pop("tomllib")
            cells = []
            for name, (accepted, value) in decisions.items():
                same = accepted == reference_accepts and strict_equal(value, reference_value)
                verdict[name] &= same
                cells.append(f"{name}: {'accepts' if accepted else 'rejects'}{'' if same else ' (DIFFERS)'}")
            print(f"  {label:<38} tomllib {'accepts' if reference_accepts else 'rejects'}; " + "; ".join(cells))

        print("\nhostile documents, one child process each (tomllib's error becomes a ContractError):")
        for label, expression in HOSTILE.items():
            decisions = {name: child_decision(name, expression) for name in found}
            reference = decisions.pop("tomllib")
            cells = []
            for name, outcome in decisions.items():
                same = outcome.split()[0] == reference.split()[0]
                verdict[name] &= same
                cells.append(f"{name}: {outcome}{'' if same else ' (DIFFERS)'}")
            print(f"  {label:<30} tomllib {reference}; " + "; ".join(cells))

        print("\nverdict (drop-in for tomllib on these checks):")
        for name, ok in verdict.items():
            print(
                f"  {name:<20} {'yes' if ok else 'NO'}   parse {timings[name]:.3f} s = {timings[name] / tl:.2f}x tomllib"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Files: everything that reads or writes the disk, and nothing that judges or scores.

TOML (a verified fast path beside tomllib), atomic writes, protocol directories
(``protocol.toml``, ``qrels.toml``, ``runs/``), run files (JSON, TREC) and chunk maps, and
TREC interop. These modules may use evaluation's objects (``Protocol``, ``Run``); they never
import annotation. This package's face re-exports the loaders the CLI and screens call.
"""

from rankeval_tui.core.files.protocol_files import (
    PROTOCOL_FILE,
    QRELS_FILE,
    RUNS_DIR,
    QrelsFile,
    check_id,
    load_definition,
    load_protocol,
    load_protocol_and_qrels,
    pair_tables,
    qrels_to_toml,
    read_qrels_file,
    write_qrels,
)
from rankeval_tui.core.files.runs import load_chunk_map, load_run, parse_run_argument, run_files

__all__ = [
    "PROTOCOL_FILE",
    "QRELS_FILE",
    "RUNS_DIR",
    "QrelsFile",
    "check_id",
    "load_chunk_map",
    "load_definition",
    "load_protocol",
    "load_protocol_and_qrels",
    "load_run",
    "pair_tables",
    "parse_run_argument",
    "qrels_to_toml",
    "read_qrels_file",
    "run_files",
    "write_qrels",
]

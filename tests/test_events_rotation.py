"""A watching child's events file (its stdout, which the workbench follows) stays bounded however
long the watch runs: past a limit the child goes on in a new file (`rotate_events`), and the
follower reads on there and deletes the file it finished (`follow_lines`), losing and repeating
no line."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ragstream.index.build_events import EventWriter, follow_lines

# A child that writes `count` events, and a warning on stderr after each 100th, to a stdout that
# is the events file, rotating it past `limit` bytes -- as `ragstream index --watch --events` does.
CHILD = """
import sys
from pathlib import Path
from ragstream.index.build_events import EventWriter
count, limit, path = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
writer = EventWriter(sys.stdout, path, limit=limit)
for n in range(count):
    writer.changed([f"file{n}.py"])
    if n % 100 == 99:
        print(f"warning {n}", file=sys.stderr, flush=True)
"""


def test_a_rotating_events_file_is_followed_without_losing_a_line(tmp_path: Path):
    events = tmp_path / "events.jsonl"
    count, limit = 3000, 4096  # ~120 kB of events: about thirty files
    on_disk: list[int] = []
    with open(events, "wb") as out:
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(count), str(limit), str(events)],
                                 stdout=out, stderr=subprocess.STDOUT)
    lines: list[str] = []

    def take(line: str) -> None:
        lines.append(line)
        on_disk.append(max((f.stat().st_size for f in tmp_path.iterdir()), default=0))

    assert follow_lines(events, child.poll, take) == 0  # however far behind the follower is
    changed = [json.loads(line)["paths"][0] for line in lines if line.startswith("{")]
    assert changed == [f"file{n}.py" for n in range(count)]
    assert [line.strip() for line in lines if not line.startswith("{")] == [
        f"warning {n}" for n in range(99, count, 100)]  # stderr moved to the new file with stdout
    assert max(on_disk) < limit + 200  # no file past the limit and the line that passed it
    left = list(tmp_path.iterdir())  # the files read to their end are gone
    assert len(left) == 1 and left[0].name.startswith("events.jsonl~") and left[0].stat().st_size < limit + 200


def test_a_rotated_file_ends_with_the_event_that_names_the_next(tmp_path: Path):
    events = tmp_path / "events.jsonl"
    with open(events, "w", encoding="utf-8") as stream:
        writer = EventWriter(stream, events, limit=10)
        writer.watching()  # past the limit at once: rotated after this line
        writer.changed(["a.py"])
        writer.changed(["b.py"])
    assert events.read_text(encoding="utf-8").splitlines() == [
        '{"event": "watching"}', '{"event": "rotated", "next": "events.jsonl~1"}']
    assert (tmp_path / "events.jsonl~1").read_text(encoding="utf-8").splitlines() == [
        '{"event": "changed", "paths": ["a.py"]}', '{"event": "rotated", "next": "events.jsonl~2"}']
    assert (tmp_path / "events.jsonl~2").read_text(encoding="utf-8").splitlines()[0] == (
        '{"event": "changed", "paths": ["b.py"]}')
    assert (tmp_path / "events.jsonl~3").read_text(encoding="utf-8") == ""  # what comes next goes there


def test_a_writer_without_a_file_to_rotate_leaves_the_stream_alone(tmp_path: Path):
    events = tmp_path / "events.jsonl"
    with open(events, "w", encoding="utf-8") as stream:
        writer = EventWriter(stream)
        for _ in range(50):
            writer.watching()
    assert events.read_text(encoding="utf-8").count("\n") == 50


def test_a_rotation_after_an_unfinished_line_puts_its_event_on_a_line_of_its_own(tmp_path: Path):
    # a child's stderr (the same file) left "partial" without its newline: the event still names the next file
    events = tmp_path / "events.jsonl"
    with open(events, "w", encoding="utf-8") as stream:
        stream.write("partial")
        stream.flush()
        writer = EventWriter(stream, events, limit=10)
        writer.watching()
    lines = events.read_text(encoding="utf-8").splitlines()
    assert lines[-1] == '{"event": "rotated", "next": "events.jsonl~1"}'

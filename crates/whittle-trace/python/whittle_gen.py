"""whittle_gen: record and replay the random decisions of a test-input generator.

This is the client side of generator-based reduction (GReduce, Ren et al. 2024) in whittle. A
generator written in Python takes its random decisions through this module instead of `random`:

    import whittle_gen as wg

    def generate():
        word = ""
        for _ in wg.repeat(20):          # a reducible loop: at most 20 iterations
            word += wg.choice("abcdefghijklmnopqrstuvwxyz")
        if wg.maybe():                    # a reducible selection: the block may be dropped
            word += "!"
        return word + "\\n" + word + "\\n"

    if __name__ == "__main__":
        wg.main(generate, check=..., size=...)

`wg.main` gives the script these commands:

    gen.py record TRACE OUT [--seed N]   run with fresh randomness, write the trace and the output
    gen.py replay TRACE OUT              follow TRACE (trace-aligned re-execution), write the output
    gen.py check OUT                     exit 0 if OUT passes the generator's own validity check
    gen.py size OUT                      print the size of OUT in the generator's natural unit

whittle reduces the trace (`whittle reduce run.trace --generator 'python3 gen.py replay {trace}
{out}' --test ...`): it deletes loop iterations and selected blocks from the trace, and each
candidate trace is replayed by this module, so every candidate output is one the generator itself
can make.

Replaying aligns the generator's new decisions with the (reduced) trace by call site and order.
When they cannot be aligned (a decision whose recorded value is no longer possible, or a different
call than the trace expects), the strategy in the environment variable WHITTLE_ALIGN decides:

    halt     stop the generator (exit status 3); the candidate is not interesting
    fresh    make this one decision afresh and go on aligning with the trace
    realign  (default) a decision whose recorded value is impossible is made afresh; when the
             generator calls something else than the trace holds, the rest of the current loop
             iteration or selected block is generated afresh, and alignment resumes after it ends
             (at the top level, outside every loop and selection, the whole rest of the run)
    bypass   remove the innermost loop iteration or selected block of the trace that holds the
             decision that cannot be aligned, and start the generator again (halt if there is none)

Fresh decisions come from a fixed seed, so a trace always gives the same output. A fresh loop
runs its minimum number of iterations and a fresh selection is not taken: decisions that would
make the output larger are never invented. If WHITTLE_GEN_STATS names a file, the counts of the
alignment are written there as JSON.

Only the standard library is used. The generator function must not keep state between calls
(the bypass strategy calls it more than once).
"""

import ast
import json
import linecache
import os
import random as _random
import sys

__all__ = ["choice", "randint", "random", "maybe", "repeat", "main", "Halt"]

HEADER = "whittle-trace 1"
STRATEGIES = ("halt", "fresh", "realign", "bypass")
# Exit status of a replay that halted on a misalignment (whittle counts these apart).
EXIT_HALT = 3
# A choice's value is recorded (for matching by value) only if its repr is at most this long.
MAX_REPR = 120
FRESH_SEED = 0x5EED


class Halt(Exception):
    """Raised inside the generator when a replay with the `halt` strategy cannot align."""


class _Bypass(Exception):
    def __init__(self, part):
        super().__init__("bypass")
        self.part = part


class TraceError(Exception):
    """A trace file that this module cannot read."""


# ---------------------------------------------------------------------------------------------
# The trace: a tree of events.
#
# Event kinds: "C" choice (index, repr), "R" randint (value), "F" random (float), "B" a maybe()
# that is not the test of an `if` (a plain boolean), "S" a selection (block: list of events, or
# None when not taken), "L" a loop (iterations: list of lists of events).


class Event:
    __slots__ = ("kind", "site", "value", "extra", "children")

    def __init__(self, kind, site, value=None, extra=None, children=None):
        self.kind = kind
        self.site = site
        self.value = value
        self.extra = extra
        self.children = children


def _write_events(events, out):
    for ev in events:
        if ev.kind == "C":
            tail = "" if ev.extra is None else " " + json.dumps(ev.extra)
            out.append("C %s %d%s\n" % (ev.site, ev.value, tail))
        elif ev.kind == "R":
            out.append("R %s %d\n" % (ev.site, ev.value))
        elif ev.kind == "F":
            out.append("F %s %s\n" % (ev.site, float.hex(ev.value)))
        elif ev.kind == "B":
            out.append("B %s %d\n" % (ev.site, 1 if ev.value else 0))
        elif ev.kind == "S":
            out.append("S %s\n" % ev.site)
            if ev.children is not None:
                out.append("[\n")
                _write_events(ev.children, out)
                out.append("]\n")
        elif ev.kind == "L":
            out.append("L %s\n" % ev.site)
            if ev.children:
                out.append("{\n")
                for it in ev.children:
                    out.append("(\n")
                    _write_events(it, out)
                    out.append(")\n")
                out.append("}\n")


def dump_trace(events):
    out = [HEADER + "\n"]
    _write_events(events, out)
    return "".join(out)


def parse_trace(text):
    lines = text.split("\n")
    if not lines or lines[0].strip() != HEADER:
        raise TraceError("line 1: expected %r" % HEADER)
    root = []
    # Stack of (list being filled, closing token, the event that owns a loop list).
    stack = [(root, None, None)]
    pending = None  # An S or L event whose block or iteration list may follow.
    for no, raw in enumerate(lines[1:], start=2):
        line = raw.strip()
        if not line:
            continue
        events, closer, owner = stack[-1]
        if line == "[":
            if pending is None or pending.kind != "S":
                raise TraceError("line %d: `[` without a selection before it" % no)
            pending.children = []
            stack.append((pending.children, "]", pending))
            pending = None
            continue
        if line == "{":
            if pending is None or pending.kind != "L":
                raise TraceError("line %d: `{` without a loop before it" % no)
            pending.children = []
            stack.append((pending.children, "}", pending))
            pending = None
            continue
        pending = None
        if line == "(":
            if closer != "}":
                raise TraceError("line %d: `(` outside a loop's `{ }`" % no)
            it = []
            events.append(it)
            stack.append((it, ")", owner))
            continue
        if line in ("]", "}", ")"):
            if line != closer:
                raise TraceError("line %d: unexpected `%s`" % (no, line))
            stack.pop()
            continue
        if closer == "}":
            raise TraceError("line %d: only `(` iterations may stand in a loop's `{ }`" % no)
        parts = line.split(" ", 3)
        kind = parts[0]
        if len(parts) < 2:
            raise TraceError("line %d: an event needs a call site" % no)
        site = parts[1]
        try:
            if kind == "C":
                extra = json.loads(parts[3]) if len(parts) > 3 else None
                ev = Event("C", site, int(parts[2]), extra)
            elif kind == "R":
                ev = Event("R", site, int(parts[2]))
            elif kind == "F":
                ev = Event("F", site, float.fromhex(parts[2]))
            elif kind == "B":
                ev = Event("B", site, parts[2] == "1")
            elif kind == "S":
                ev = Event("S", site)
                pending = ev
            elif kind == "L":
                ev = Event("L", site, children=[])
                pending = ev
            else:
                raise TraceError("line %d: unknown event kind %r" % (no, kind))
        except (IndexError, ValueError) as e:
            raise TraceError("line %d: %s" % (no, e)) from None
        events.append(ev)
    if len(stack) != 1:
        raise TraceError("the trace ends inside a `%s` block" % stack[-1][1])
    return root


def count_decisions(events):
    n = 0
    for ev in events:
        n += 1
        if ev.kind == "S" and ev.children:
            n += count_decisions(ev.children)
        elif ev.kind == "L":
            for it in ev.children or ():
                n += count_decisions(it)
    return n


# ---------------------------------------------------------------------------------------------
# Call sites and the extent of `if maybe():` blocks.

_THIS_FILE = os.path.abspath(__file__)
_if_bodies = {}  # (filename, line) -> (first, last) body lines, or None


def _caller():
    """The first frame outside this module."""
    f = sys._getframe(1)
    while f is not None and os.path.abspath(f.f_code.co_filename) == _THIS_FILE:
        f = f.f_back
    return f


def _site(frame):
    name = os.path.basename(frame.f_code.co_filename).replace(" ", "_") or "?"
    return "%s:%d" % (name, frame.f_lineno)


def _calls_maybe(node):
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            fn = sub.func
            if (isinstance(fn, ast.Name) and fn.id == "maybe") or (
                isinstance(fn, ast.Attribute) and fn.attr == "maybe"
            ):
                return True
    return False


def _if_body(frame):
    """The line range of the body of the `if` statement whose test calls maybe() on the frame's
    current line, or None when maybe() is not the test of an `if`."""
    filename, line = frame.f_code.co_filename, frame.f_lineno
    key = (filename, line)
    if key in _if_bodies:
        return _if_bodies[key]
    found = None
    source = "".join(linecache.getlines(filename))
    try:
        tree = ast.parse(source) if source else None
    except SyntaxError:
        tree = None
    if tree is not None:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.If)
                and node.test.lineno <= line <= node.test.end_lineno
                and _calls_maybe(node.test)
                and node.body
                and node.body[0].lineno > node.test.end_lineno
            ):
                found = (node.body[0].lineno, node.body[-1].end_lineno)
                break
    _if_bodies[key] = found
    return found


def _frame_active(frame, body):
    """Whether `frame` is still running inside the line range `body`."""
    f = sys._getframe(1)
    while f is not None:
        if f is frame:
            return body[0] <= frame.f_lineno <= body[1]
        f = f.f_back
    return False


# ---------------------------------------------------------------------------------------------
# Recording and replaying.


class _Frame:
    """A list of trace events being filled (recording) or followed (replaying).

    kind: "root", "iter" (a loop iteration) or "block" (a selected block); for a block, `py` and
    `body` are the Python frame and line range of the `if` body, so the block can be closed once
    the generator has left it. `events` is None for a part that has no counterpart in the trace
    (it is generated afresh)."""

    __slots__ = ("kind", "events", "pos", "lost", "py", "body", "path")

    def __init__(self, kind, events, path, py=None, body=None):
        self.kind = kind
        self.events = events
        self.pos = 0
        self.lost = events is None
        self.py = py
        self.body = body
        self.path = path


class _Context:
    def __init__(self, trace, strategy, seed):
        self.recording = trace is None
        self.rng = _random.Random(seed if self.recording else FRESH_SEED)
        self.strategy = strategy
        self.root = [] if self.recording else trace
        self.stack = [_Frame("root", self.root, ())]
        self.stats = {
            "aligned": 0,
            "misaligned": 0,
            "fresh": 0,
            "skipped": 0,
            "restarts": 0,
            "halted": 0,
        }

    # -- frames --------------------------------------------------------------------------------

    def _close_blocks(self):
        """Pops the selected blocks the generator has left since the last decision."""
        while self.stack[-1].kind == "block" and not _frame_active(
            self.stack[-1].py, self.stack[-1].body
        ):
            self._pop()

    def _pop(self):
        f = self.stack.pop()
        if not self.recording and f.events is not None and f.pos < len(f.events):
            self.stats["skipped"] += len(f.events) - f.pos

    # -- alignment -----------------------------------------------------------------------------

    def _top(self):
        """The frame the next decision belongs to (after closing the blocks already left)."""
        self._close_blocks()
        return self.stack[-1]

    def _expect(self, kind, site):
        """The trace event aligned with this call, consumed; or None after handling a
        misalignment (the caller then decides afresh)."""
        f = self._top()
        if f.lost:
            self.stats["fresh"] += 1
            return None
        ev = f.events[f.pos] if f.pos < len(f.events) else None
        if ev is not None and ev.kind == kind and ev.site == site:
            f.pos += 1
            return ev
        self._misaligned(f, ev, value=False)
        return None

    def _misaligned(self, f, ev, value):
        """Handles a call the trace cannot align with. `value`: the call site matches but the
        recorded value is impossible now (the event is used up); otherwise the generator makes
        another call than the trace holds next (`ev`, None at the end of the trace's part)."""
        self.stats["misaligned"] += 1
        s = self.strategy
        if s == "halt":
            raise Halt("cannot align with the trace at %s" % (ev.site if ev else "its end"))
        if s == "bypass" and ev is not None:
            if f.kind == "root":
                raise Halt("no loop iteration or selected block to bypass at %s" % ev.site)
            raise _Bypass(f.path)
        self.stats["fresh"] += 1
        if s == "realign" and ev is not None and not value:
            # Everything else in this part is made afresh; after it, alignment resumes.
            f.lost = True

    # -- decisions -----------------------------------------------------------------------------

    def choice(self, site, seq):
        n = len(seq)
        if n == 0:
            raise IndexError("cannot choose from an empty sequence")
        if self.recording:
            i = self.rng.randrange(n)
            r = repr(seq[i])
            self._top().events.append(Event("C", site, i, r if len(r) <= MAX_REPR else None))
            return seq[i]
        ev = self._expect("C", site)
        if ev is not None:
            i = self._match_choice(seq, ev)
            if i is not None:
                self.stats["aligned"] += 1
                return seq[i]
            self._misaligned(self.stack[-1], ev, value=True)
        return seq[self.rng.randrange(n)]

    @staticmethod
    def _match_choice(seq, ev):
        n = len(seq)
        if ev.extra is None:
            return ev.value if 0 <= ev.value < n else None
        if 0 <= ev.value < n and repr(seq[ev.value]) == ev.extra:
            return ev.value
        for i in range(n):
            if repr(seq[i]) == ev.extra:
                return i
        return None

    def randint(self, site, a, b):
        if self.recording:
            v = self.rng.randint(a, b)
            self._top().events.append(Event("R", site, v))
            return v
        ev = self._expect("R", site)
        if ev is not None:
            if a <= ev.value <= b:
                self.stats["aligned"] += 1
                return ev.value
            self._misaligned(self.stack[-1], ev, value=True)
        return self.rng.randint(a, b)

    def random(self, site):
        if self.recording:
            v = self.rng.random()
            self._top().events.append(Event("F", site, v))
            return v
        ev = self._expect("F", site)
        if ev is not None:
            self.stats["aligned"] += 1
            return ev.value
        return self.rng.random()

    def maybe(self, site, p, py):
        body = _if_body(py)
        if body is None:
            # Not the test of an `if`: a plain boolean decision.
            if self.recording:
                v = self.rng.random() < p
                self._top().events.append(Event("B", site, v))
                return v
            ev = self._expect("B", site)
            if ev is not None:
                self.stats["aligned"] += 1
                return ev.value
            return self.rng.random() < p
        if self.recording:
            taken = self.rng.random() < p
            ev = Event("S", site, children=[] if taken else None)
            self._top().events.append(ev)
            if taken:
                self.stack.append(_Frame("block", ev.children, (), py, body))
            return taken
        ev = self._expect("S", site)
        if ev is None:
            # Made afresh: not taken, so that nothing is invented.
            return False
        self.stats["aligned"] += 1
        if ev.children is None:
            return False
        path = self.stack[-1].path + (("S", self.stack[-1].pos - 1),)
        self.stack.append(_Frame("block", ev.children, path, py, body))
        return True

    def repeat(self, site, min_n, max_n):
        if self.recording:
            n = self.rng.randint(min_n, max_n)
            ev = Event("L", site, children=[])
            self._top().events.append(ev)
            return self._iterate(n, ev.children, None, ())
        ev = self._expect("L", site)
        if ev is None:
            return self._iterate(min_n, None, None, ())
        self.stats["aligned"] += 1
        n = len(ev.children)
        if not min_n <= n <= max_n:
            self._misaligned(self.stack[-1], ev, value=True)
            n = min(max(n, min_n), max_n)
        path = self.stack[-1].path + (("L", self.stack[-1].pos - 1),)
        return self._iterate(n, None, ev.children, path)

    def _iterate(self, n, record_into, trace_iters, path):
        depth = len(self.stack)
        try:
            for i in range(n):
                if self.recording:
                    it = []
                    record_into.append(it)
                    self.stack.append(_Frame("iter", it, ()))
                else:
                    have = trace_iters is not None and i < len(trace_iters)
                    events = trace_iters[i] if have else None
                    self.stack.append(_Frame("iter", events, path + (("I", i),)))
                yield i
                self._end_iteration(depth)
        finally:
            self._end_iteration(depth)

    def finish(self):
        """Closes every open part, counting the trace events the run did not use."""
        while len(self.stack) > 1:
            self._pop()
        self._pop()

    def _end_iteration(self, depth):
        while len(self.stack) > depth:
            self._pop()


_ctx = None


def _current():
    if _ctx is None:
        raise RuntimeError("whittle_gen: call the generator through whittle_gen.main or run()")
    return _ctx


def choice(seq):
    """A random element of the non-empty sequence `seq` (recorded by value)."""
    ctx = _current()
    return ctx.choice(_site(_caller()), seq)


def randint(a, b):
    """A random integer N with a <= N <= b."""
    ctx = _current()
    return ctx.randint(_site(_caller()), a, b)


def random():
    """A random float in [0, 1)."""
    ctx = _current()
    return ctx.random(_site(_caller()))


def maybe(p=0.5):
    """True with probability p. As the test of an `if` whose body starts on a line of its own, the
    body is a reducible selection: whittle may drop it."""
    ctx = _current()
    py = _caller()
    return ctx.maybe(_site(py), p, py)


def repeat(max_n, min_n=0):
    """A reducible loop: `for _ in repeat(max_n):` runs between min_n and max_n iterations (both
    included); whittle may drop iterations."""
    if min_n > max_n:
        raise ValueError("repeat: min_n > max_n")
    ctx = _current()
    return ctx.repeat(_site(_caller()), min_n, max_n)


# ---------------------------------------------------------------------------------------------
# Running a generator.


def _remove_part(events, part):
    """Drops the loop iteration or selected block that `part` names from the trace."""
    target = events
    holder = None
    for step, (kind, index) in enumerate(part):
        if kind in ("S", "L"):
            holder = target[index]
            if kind == "S":
                if step == len(part) - 1:
                    holder.children = None
                    return
                target = holder.children
            else:
                target = holder.children
        else:  # "I": an iteration of the loop `holder`
            if step == len(part) - 1:
                del holder.children[index]
                return
            target = target[index]


def run(generate, trace=None, strategy="realign", seed=None):
    """Runs `generate()`, recording (trace None) or replaying `trace` (a list of events, which
    the bypass strategy edits). Returns (output, events, stats); raises Halt, with the stats of
    the halted run in its `stats` attribute."""
    global _ctx
    if strategy not in STRATEGIES:
        raise ValueError("unknown alignment strategy %r (one of %s)" % (strategy, STRATEGIES))
    restarts = misaligned = 0
    while True:
        ctx = _Context(trace, strategy, seed)
        # The misalignments that made `bypass` start again are counted too.
        ctx.stats["restarts"] = restarts
        ctx.stats["misaligned"] = misaligned
        _ctx = ctx
        try:
            output = generate()
            ctx.finish()
            return output, ctx.root, ctx.stats
        except _Bypass as b:
            restarts += 1
            misaligned = ctx.stats["misaligned"]
            _remove_part(trace, b.part)
        except Halt as h:
            ctx.stats["halted"] = 1
            h.stats = ctx.stats
            raise
        finally:
            _ctx = None


def _as_bytes(output):
    if isinstance(output, bytes):
        return output
    if isinstance(output, str):
        return output.encode("utf-8")
    raise TypeError("the generator must return str or bytes, not %s" % type(output).__name__)


def _write_stats(stats):
    path = os.environ.get("WHITTLE_GEN_STATS")
    if path and stats is not None:
        with open(path, "w") as f:
            json.dump(stats, f)


def main(generate, check=None, size=None, argv=None):
    """The command line of a generator script (see the module's documentation)."""
    args = list(sys.argv[1:] if argv is None else argv)
    usage = (
        "usage: %s record TRACE OUT [--seed N] | replay TRACE OUT | check OUT | size OUT"
        % os.path.basename(sys.argv[0])
    )
    if not args:
        sys.exit(usage)
    cmd = args.pop(0)
    if cmd == "record" and len(args) in (2, 4):
        seed = None
        if len(args) == 4:
            if args[2] != "--seed":
                sys.exit(usage)
            seed = int(args[3])
        output, events, _ = run(generate, None, seed=seed)
        with open(args[0], "w") as f:
            f.write(dump_trace(events))
        with open(args[1], "wb") as f:
            f.write(_as_bytes(output))
        return
    if cmd == "replay" and len(args) == 2:
        strategy = os.environ.get("WHITTLE_ALIGN", "realign")
        try:
            with open(args[0]) as f:
                events = parse_trace(f.read())
        except (OSError, UnicodeDecodeError, TraceError) as e:
            sys.exit("whittle_gen: cannot read the trace %s: %s" % (args[0], e))
        try:
            output, _, stats = run(generate, events, strategy)
        except Halt as e:
            _write_stats(e.stats)
            print("whittle_gen: halted: %s" % e, file=sys.stderr)
            sys.exit(EXIT_HALT)
        _write_stats(stats)
        with open(args[1], "wb") as f:
            f.write(_as_bytes(output))
        return
    if cmd == "check" and len(args) == 1 and check is not None:
        with open(args[0], "rb") as f:
            ok = check(f.read())
        sys.exit(0 if ok else 1)
    if cmd == "size" and len(args) == 1 and size is not None:
        with open(args[0], "rb") as f:
            print(size(f.read()))
        return
    sys.exit(usage)

#!/usr/bin/env bash
# The compile-time cost of the attribute: a corpus of annotated items built as a library crate
# with `revad`, and the same crate with a `revad` whose attributes return the item unchanged.
#
#   [CORPUS=user|long] bash benches/compile-time.sh [PROGRAMS] [FEATURES]
#
# - The corpus (`CORPUS=fuzz`, the default): the first PROGRAMS (default 40) programs of the random-program generator's CI
#   corpus (`tests/random-programs`, its fixed seed), definitions only: functions, methods, trait
#   and impl blocks, structs with `#[derive(revad::Adjoint)]`, in loops, branches, calls,
#   checkpoints, iterator chains and `&mut` buffers. `CORPUS=user`: the programs of
#   `tests/user_programs.rs`, written as users write Rust, without their tests. `CORPUS=long`:
#   one generated function of about 200 lines.
# - FEATURES: `revad`'s features for the build (default: none, as a user's `Cargo.toml` has it).
# - Prints the debug and release rebuild times (the best of 5 after touching the corpus, the
#   dependencies built), and their ratio to the no-op crate's.
# - The expansion's size and the attribute's own time are measured by `cargo test -p
#   revad-macros expansion_size`
#   (`AD_EXPAND_STATS=FILE`), which this script runs on the same corpus.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROGRAMS=${1:-40}
FEATURES=${2:-}
CORPUS=${CORPUS:-fuzz}
WORK=${AD_COMPILE_DIR:-$ROOT/target/compile-time}

rm -rf "$WORK"
mkdir -p "$WORK/real/src" "$WORK/noop/src" "$WORK/stub/src" "$WORK/stub-macros/src"

if [ "$CORPUS" = long ]; then
    # One function of about 200 lines (the issue's measure of the attribute's own time):
    # straight-line statements over the earlier ones, reductions over `w` and branches, drawn
    # with a fixed seed.
    python3 - > "$WORK/corpus.rs" <<'EOF'
import random
random.seed(7)
lines = ["use revad::reverse;", "#[reverse]", "pub fn long(w: &[f64], x: f64, y: f64) -> f64 {",
         "    let mut acc = 0.0;", "    let a0 = x * y;"]
names, k = ["x", "y", "a0"], 0
while len(lines) < 200:
    r, pick = random.random(), lambda: random.choice(names)
    if r < 0.15:
        k += 1
        lines += [f"    let mut a{k} = 0.0;", "    for i in 0..w.len() {",
                  f"        a{k} += w[i] * {pick()} + (i as f64).sin() * {pick()};", "    }"]
        names.append(f"a{k}")
    elif r < 0.25:
        a = pick()
        lines += [f"    if {a} > 0.5 {{", f"        acc += {a}.sqrt() * {pick()};", "    } else {",
                  f"        acc -= {a} * {a};", "    }"]
    else:
        k += 1
        a, b, c = pick(), pick(), pick()
        rhs = random.choice([f"{a} * {b} + {c}", f"({a} - {b}).tanh() * {c}",
                             f"{a}.exp().ln_1p() + {b} / (1.0 + {c} * {c})",
                             f"{a}.max({b}) * 0.5", f"({a} * {b}).sin() + {c}.cos()"])
        lines.append(f"    let a{k} = {rhs};")
        names.append(f"a{k}")
lines += [f"    acc + {names[-1]} + {names[-2]}", "}"]
print("\n".join(lines))
EOF
elif [ "$CORPUS" = user ]; then
    # The programs of `tests/user_programs.rs` (written as users write Rust), without the tests
    # and the helpers that call the library's checks.
    python3 - "$ROOT/tests/user_programs.rs" > "$WORK/corpus.rs" <<'EOF'
import re, sys
items, cur = [], []
for line in open(sys.argv[1]).read().split("\n"):
    cur.append(line)
    if line in ("}", "};") or re.match(r"^(pub )?(use|const|static|type|struct) .*;$", line):
        items.append("\n".join(cur))
        cur = []
print("use revad::{forward, reverse};")
for item in items:
    annotated = "#[reverse" in item or "#[forward" in item
    if "#[test]" in item or item.lstrip().startswith(("//!", "use ")):
        continue
    print(item)
EOF
else
    # The generator's corpus: its build script writes it to its OUT_DIR.
    out_dir=$(cd "$ROOT" && cargo check -q -p revad-random-programs --tests --message-format=json \
        | grep '"reason":"build-script-executed"' | grep 'revad-random-programs' \
        | sed 's/.*"out_dir":"\([^"]*\)".*/\1/' | tail -1)
    [ -f "$out_dir/fuzz_0.rs" ] || { echo "no corpus in $out_dir" >&2; exit 1; }
    # The programs of shard 0's `programs` module, up to the end of program PROGRAMS - 1.
    python3 - "$out_dir/fuzz_0.rs" "$PROGRAMS" > "$WORK/corpus.rs" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
count = int(sys.argv[2])
start = lines.index("pub mod programs {") + 1
out = []
for line in lines[start:]:
    if line.startswith("/// The same programs"):
        break
    if re.match(r"^(pub )?(struct|impl|trait|fn) [A-Za-z_]*%d[^0-9]" % count, line):
        break
    out.append(line)
# Drop a trailing partial item.
while out and not out[-1].startswith("}"):
    out.pop()
print("\n".join(out))
EOF
fi
# Without the feature `cps`, the CPS programs are taken with the default backend.
case ",$FEATURES," in
    *,cps,*) ;;
    *) sed -i 's/#\[reverse(cps)\]/#[reverse]/; s/#\[revad::reverse(cps)\]/#[revad::reverse]/' "$WORK/corpus.rs" ;;
esac
items=$(grep -cE '^\s*#\[(revad::)?(reverse|forward)' "$WORK/corpus.rs" || true)
functions=$(grep -cE '^\s*(pub )?fn ' "$WORK/corpus.rs" || true)
lines=$(wc -l < "$WORK/corpus.rs")

lib_header='#![allow(warnings, clippy::all)]'
{ echo "$lib_header"; cat "$WORK/corpus.rs"; } > "$WORK/real/src/lib.rs"
cp "$WORK/real/src/lib.rs" "$WORK/noop/src/lib.rs"

features_toml=""
[ -n "$FEATURES" ] && features_toml=", features = [\"${FEATURES//,/\",\"}\"]"
cat > "$WORK/real/Cargo.toml" <<EOF
[package]
name = "corpus-real"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
revad = { path = "$ROOT"$features_toml }
num-traits = "0.2.19"
[workspace]
EOF
cat > "$WORK/noop/Cargo.toml" <<EOF
[package]
name = "corpus-noop"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
revad = { path = "../stub" }
num-traits = "0.2.19"
[workspace]
EOF
# The no-op `revad`: attributes that return the item (without the statement attributes
# `#[revad::checkpoint]`, which only the real attribute can consume), a derive that emits
# nothing, and the runtime's items that the programs name (`stop_gradient`, `Float`, `check`).
cat > "$WORK/stub/Cargo.toml" <<EOF
[package]
name = "revad"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
revad-stub-macros = { path = "../stub-macros" }
revad-runtime = { path = "$ROOT/ad-runtime" }
EOF
cat > "$WORK/stub/src/lib.rs" <<'EOF'
pub use revad_runtime::{check, num_traits, stop_gradient, Float};
pub use revad_stub_macros::{checkpoint, forward, reverse, Adjoint};
EOF
cat > "$WORK/stub-macros/Cargo.toml" <<EOF
[package]
name = "revad-stub-macros"
version = "0.0.0"
edition = "2021"
publish = false
[lib]
proc-macro = true
EOF
cat > "$WORK/stub-macros/src/lib.rs" <<'EOF'
use proc_macro::{Delimiter, Group, TokenStream, TokenTree};
fn strip(ts: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if let (TokenTree::Punct(p), Some(TokenTree::Group(g))) = (&tokens[i], tokens.get(i + 1)) {
            if p.as_char() == '#' && g.delimiter() == Delimiter::Bracket
                && g.stream().to_string().contains("checkpoint")
            {
                i += 2;
                continue;
            }
        }
        out.push(match &tokens[i] {
            TokenTree::Group(g) => {
                let mut n = Group::new(g.delimiter(), strip(g.stream()));
                n.set_span(g.span());
                TokenTree::Group(n)
            }
            t => t.clone(),
        });
        i += 1;
    }
    out.into_iter().collect()
}
#[proc_macro_attribute]
pub fn reverse(_: TokenStream, item: TokenStream) -> TokenStream { strip(item) }
#[proc_macro_attribute]
pub fn forward(_: TokenStream, item: TokenStream) -> TokenStream { strip(item) }
#[proc_macro_attribute]
pub fn checkpoint(_: TokenStream, item: TokenStream) -> TokenStream { item }
#[proc_macro_derive(Adjoint)]
pub fn adjoint(_: TokenStream) -> TokenStream { TokenStream::new() }
EOF

# The best of 3 rebuilds of the corpus crate, in seconds.
rebuild() {
    local dir=$1 profile=$2 best=""
    (cd "$dir" && cargo build -q $profile 2>/dev/null) || (cd "$dir" && cargo build $profile)
    for _ in 1 2 3 4 5; do
        touch "$dir/src/lib.rs"
        local t0 t1
        t0=$(date +%s.%N)
        (cd "$dir" && cargo build -q $profile)
        t1=$(date +%s.%N)
        best=$(python3 -c "a=$t1-$t0; b='$best'; print(a if not b or a < float(b) else b)")
    done
    echo "$best"
}

echo "corpus $CORPUS: $lines lines, $items annotated items, $functions functions and methods; revad features: [${FEATURES}]"
for profile in "" "--release"; do
    real=$(rebuild "$WORK/real" "$profile")
    noop=$(rebuild "$WORK/noop" "$profile")
    python3 -c "print('%-8s rebuild: revad %.2f s, no-op attribute %.2f s: %.2fx' % ('${profile:-debug}'.lstrip('-'), $real, $noop, $real / $noop))"
done
# The attribute's own time, with the macro built for debug (as cargo builds proc macros for a
# debug build) and for release (`[profile.dev.build-override] opt-level = 3`).
(cd "$ROOT" && AD_EXPAND_STATS="$WORK/corpus.rs" cargo test -q -p revad-macros expansion_size -- --nocapture 2>/dev/null | grep -E "^expansion")
(cd "$ROOT" && AD_EXPAND_STATS="$WORK/corpus.rs" cargo test -q --release -p revad-macros expansion_size -- --nocapture 2>/dev/null | grep -E "^expansion time")

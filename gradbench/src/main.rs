//! The GradBench tool's binary: the protocol loop on stdin/stdout.

fn main() {
    ad_gradbench::protocol::serve();
}

//! `revad-gradbench`: the GradBench tool for the `revad` crate. GradBench's CLI starts it and speaks
//! the protocol on its standard input and output.

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    revad_gradbench::protocol::serve(stdin, stdout)
}

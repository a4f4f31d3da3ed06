//! `ad-gradbench`: the GradBench tool for the `ad` crate. GradBench's CLI starts it and speaks
//! the protocol on its standard input and output.

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    ad_gradbench::protocol::serve(stdin, stdout)
}

//! The library's features, checked from outside as a user's crate sees them: a nested `cargo
//! check` of a crate that depends on `revad` with its default features.
//!
//! - The default features build with no C compiler: nothing in the build is `stacker`, `psm`
//!   or `cc` (only the feature `cps` needs them), and the check runs with `CC` pointing at no
//!   compiler.
//! - `#[reverse(cps)]` without the feature `cps` is one error, at `cps`, that names the
//!   feature; the default backend beside it compiles.

use std::fs;
use std::path::Path;

use revad_robustness::scratch::{nested_cargo, target_dir};
use serde_json::Value;

const LIB: &str = "\
#[revad::reverse(cps)]
pub fn f(x: f64) -> f64 {
    x * x
}

#[revad::reverse]
pub fn g(x: f64) -> f64 {
    x.sin() * x
}

pub fn use_g() -> f64 {
    g_grad(1.0).1
}
";

#[test]
fn default_features_need_no_c_compiler_and_cps_names_its_feature() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let workspace = workspace
        .canonicalize()
        .expect("the repository root exists");
    let target = target_dir(&workspace).join("tests/robustness");
    let dir = target.join("default-features");
    fs::create_dir_all(dir.join("src")).expect("mkdir");
    let manifest = format!(
        "[package]\nname = \"default-features\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[lib]\ndoctest = false\ntest = false\n\n[dependencies]\n\
         revad = {{ path = {:?} }}\n\n[workspace]\n",
        workspace.display().to_string()
    );
    fs::write(dir.join("Cargo.toml"), manifest).expect("write the manifest");
    fs::write(dir.join("src/lib.rs"), LIB).expect("write the library");
    // The repository's lock file: the same dependency versions, no network.
    fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).expect("copy Cargo.lock");
    let output = nested_cargo(&target.join("target"))
        .args(["check", "--message-format=json"])
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .env("CC", "/nonexistent/cc")
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let messages: Vec<Value> = stdout
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();

    let built: Vec<&str> = messages
        .iter()
        .filter(|m| m["reason"] == "compiler-artifact")
        .filter_map(|m| m["target"]["name"].as_str())
        .collect();
    assert!(built.contains(&"revad"), "revad was not built:\n{stderr}");
    for c_crate in ["stacker", "psm", "cc"] {
        assert!(
            !built.contains(&c_crate),
            "the default features build `{c_crate}`"
        );
    }

    let errors: Vec<&Value> = messages
        .iter()
        .filter(|m| m["reason"] == "compiler-message" && m["message"]["level"] == "error")
        .map(|m| &m["message"])
        .collect();
    assert_eq!(errors.len(), 1, "one error expected:\n{stdout}\n{stderr}");
    let error = errors[0];
    let text = error["message"].as_str().unwrap_or_default();
    assert!(text.contains("feature `cps`"), "{text}");
    let span = &error["spans"][0];
    assert_eq!(span["line_start"], 1, "{error}");
    let (start, end) = (span["byte_start"].as_u64(), span["byte_end"].as_u64());
    let (start, end) = (start.unwrap() as usize, end.unwrap() as usize);
    assert_eq!(&LIB[start..end], "cps", "{error}");
}

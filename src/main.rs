//! The `kubectl-hpa` binary: everything lives in the library.

fn main() {
    let env = kubectl_hpa::Environment::detect();
    std::process::exit(kubectl_hpa::run(std::env::args_os().collect(), env));
}

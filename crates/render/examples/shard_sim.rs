//! Prints how targets move and balance between metrics shards, for both sharding strategies:
//! `cargo run --release -p agent-operator-render --example shard_sim [targets] [max shards]`
//! (defaults: 10000 targets, N = 1..16). The table is the one in docs/sharding.md.

use std::process::ExitCode;

use render::sharding::simulate::{simulate, synthetic_targets};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let parse = |arg: Option<String>, default: u64, what: &str| match arg {
        None => Ok(default),
        Some(s) => s.parse::<u64>().map_err(|e| format!("{what} {s:?}: {e}")),
    };
    let targets = match parse(args.next(), 10_000, "target count") {
        Ok(n) => n as usize,
        Err(e) => return usage(&e),
    };
    let max_shards = match parse(args.next(), 16, "max shard count") {
        Ok(n) if (1..=4096).contains(&n) => n as u32,
        Ok(n) => return usage(&format!("max shard count {n} is not in 1..=4096")),
        Err(e) => return usage(&e),
    };
    match simulate(&synthetic_targets(targets), max_shards) {
        Ok(report) => {
            print!("{}", report.to_markdown());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("shard_sim: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage(error: &str) -> ExitCode {
    eprintln!("shard_sim: {error}\nusage: shard_sim [targets] [max shards]");
    ExitCode::from(2)
}

//! Loads testkube with many ConfigMaps through the API and prints figures: creation rate, memory
//! held, and the latency of listing 10,000 objects.
//!
//! `cargo run --release -p testkube --example bench -- [TOTAL_OBJECTS] [PER_NAMESPACE]`
//! (defaults: 100000 objects, 10000 per namespace).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, ListParams, ObjectMeta, PostParams};

fn resident_megabytes() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kilobytes| kilobytes.parse::<f64>().ok())
        .map(|kilobytes| kilobytes / 1024.0)
        .unwrap_or(f64::NAN)
}

fn summary(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let millis = |duration: Duration| duration.as_secs_f64() * 1000.0;
    format!(
        "min {:.1} ms, median {:.1} ms, max {:.1} ms over {} runs",
        millis(samples[0]),
        millis(samples[samples.len() / 2]),
        millis(samples[samples.len() - 1]),
        samples.len()
    )
}

fn config_map(index: usize) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(format!("cm-{index:06}")),
            labels: Some(BTreeMap::from([
                ("app".to_string(), "bench".to_string()),
                ("shard".to_string(), (index % 10).to_string()),
            ])),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([
            (
                "config.yaml".to_string(),
                format!("setting: {index}\nmode: fast\nreplicas: 3\n"),
            ),
            ("owner".to_string(), "benchmark".to_string()),
        ])),
        ..ConfigMap::default()
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut arguments = std::env::args().skip(1);
    let total: usize = arguments
        .next()
        .map(|text| text.parse())
        .transpose()?
        .unwrap_or(100_000);
    let per_namespace: usize = arguments
        .next()
        .map(|text| text.parse())
        .transpose()?
        .unwrap_or(10_000);

    let server = testkube::TestKube::start().await?;
    let client = server.client()?;
    let baseline = resident_megabytes();
    println!(
        "testkube at {}; resident memory before loading: {baseline:.0} MiB",
        server.url()
    );

    let namespaces: Api<Namespace> = Api::all(client.clone());
    let namespace_count = total.div_ceil(per_namespace);
    for index in 0..namespace_count {
        let namespace = Namespace {
            metadata: ObjectMeta {
                name: Some(format!("bench-{index}")),
                ..ObjectMeta::default()
            },
            ..Namespace::default()
        };
        namespaces
            .create(&PostParams::default(), &namespace)
            .await?;
    }

    let started = Instant::now();
    // Only success is kept client-side, so the memory figure is the server's.
    let failures = futures_util::stream::iter(0..total)
        .map(|index| {
            let api: Api<ConfigMap> =
                Api::namespaced(client.clone(), &format!("bench-{}", index / per_namespace));
            async move {
                api.create(&PostParams::default(), &config_map(index))
                    .await
                    .is_err()
            }
        })
        .buffer_unordered(64)
        .filter(|failed| std::future::ready(*failed))
        .count()
        .await;
    anyhow::ensure!(failures == 0, "{failures} creations failed");
    let elapsed = started.elapsed();
    let loaded = resident_megabytes();
    println!(
        "created {total} ConfigMaps in {:.1} s ({:.0}/s); objects stored: {}",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64(),
        server.object_count()
    );
    println!(
        "resident memory with {total} objects: {loaded:.0} MiB (+{:.0} MiB)",
        loaded - baseline
    );

    let one_namespace: Api<ConfigMap> = Api::namespaced(client.clone(), "bench-0");
    let expected = per_namespace.min(total);
    let mut raw = Vec::new();
    let url = "/api/v1/namespaces/bench-0/configmaps";
    for _ in 0..10 {
        let request = http::Request::get(url).body(Vec::new())?;
        let started = Instant::now();
        let body = client.request_text(request).await?;
        raw.push(started.elapsed());
        anyhow::ensure!(body.len() > expected * 100, "suspiciously small list body");
    }
    println!(
        "list {expected} objects, HTTP response received: {}",
        summary(raw)
    );

    let mut typed = Vec::new();
    for _ in 0..10 {
        let started = Instant::now();
        let list = one_namespace.list(&ListParams::default()).await?;
        typed.push(started.elapsed());
        anyhow::ensure!(
            list.items.len() == expected,
            "listed {} objects",
            list.items.len()
        );
    }
    println!(
        "list {expected} objects, decoded by kube-rs: {}",
        summary(typed)
    );

    let everywhere: Api<ConfigMap> = Api::all(client.clone());
    let mut selected = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let list = everywhere
            .list(&ListParams::default().labels("shard=3"))
            .await?;
        selected.push(started.elapsed());
        anyhow::ensure!(
            list.items.len() == total / 10,
            "selected {} objects",
            list.items.len()
        );
    }
    println!(
        "label-selected list of {} out of {total} objects, decoded: {}",
        total / 10,
        summary(selected)
    );
    let started = Instant::now();
    let all = everywhere.list(&ListParams::default()).await?;
    println!(
        "list of all {} objects, decoded: {:.0} ms",
        all.items.len(),
        started.elapsed().as_secs_f64() * 1000.0
    );
    Ok(())
}

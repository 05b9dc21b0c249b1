"""docs/cluster/qdrant-cluster.yml: three cluster nodes that can form one cluster and lose one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

from finrag.store.server import Layout  # noqa: E402

COMPOSE = Path(__file__).resolve().parents[2] / "docs" / "cluster" / "qdrant-cluster.yml"
PEER_PORT = 6335


@pytest.fixture(scope="module")
def nodes() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


def _flag(node: dict, name: str) -> str | None:
    command = node["command"]
    args = command.split() if isinstance(command, str) else list(command)
    return args[args.index(name) + 1] if name in args else None


def test_three_nodes_of_one_pinned_image_with_cluster_mode_on(nodes):
    assert len(nodes) == 3
    images = {n["image"] for n in nodes.values()}
    assert len(images) == 1
    assert re.fullmatch(r"qdrant/qdrant:v\d+\.\d+\.\d+", images.pop())  # not :latest
    for node in nodes.values():
        env = node["environment"]
        assert str(env["QDRANT__CLUSTER__ENABLED"]).lower() == "true"
        assert str(env.get("QDRANT__CLUSTER__P2P__PORT", PEER_PORT)) == str(PEER_PORT)
        assert env.get("QDRANT__SERVICE__API_KEY")


def test_the_peer_port_is_never_published(nodes):
    for name, node in nodes.items():
        for mapping in node.get("ports", []):
            container = str(mapping.get("target") if isinstance(mapping, dict) else mapping)
            assert container.rsplit(":", 1)[-1].split("/")[0] != str(PEER_PORT), name
        assert "network_mode" not in node, f"{name}: host networking would expose the peer port"


def test_each_node_names_itself_and_the_others_join_through_one_bootstrap_peer(nodes):
    uris = {name: _flag(node, "--uri") for name, node in nodes.items()}
    for name, uri in uris.items():
        assert uri == f"http://{name}:{PEER_PORT}"
    bootstraps = {name: _flag(node, "--bootstrap") for name, node in nodes.items()}
    founders = [name for name, peer in bootstraps.items() if peer is None]
    assert len(founders) == 1
    for name, peer in bootstraps.items():
        if peer is not None:
            assert peer == uris[founders[0]] and founders[0] in nodes[name].get("depends_on", [])


def test_each_node_keeps_its_storage_in_its_own_volume():
    compose = yaml.safe_load(COMPOSE.read_text())
    storage = []
    for name, node in compose["services"].items():
        mounts = [v for v in node["volumes"] if v.endswith(":/qdrant/storage")]
        assert len(mounts) == 1, name
        storage.append(mounts[0].split(":")[0])
    assert len(set(storage)) == 3 and set(storage) <= set(compose["volumes"])


def test_the_documented_layout_puts_two_shards_per_node_on_two_replicas(nodes):
    asked = dict(re.findall(r"(FINRAG_QDRANT_\w+)=(\d+)", COMPOSE.read_text()))
    layout = Layout(**{field: int(asked[variable]) for field, variable in Layout.ENV.items()})
    assert layout.shard_number >= 2 * len(nodes)
    assert layout.replication_factor == 2
    assert layout.write_consistency_factor <= layout.replication_factor - 1  # one node may be down

"""Weighted RRF against hand-computed examples."""

import pytest

from finrag.fusion import rrf


def test_one_to_one_weights_hand_computed():
    fused = rrf({"dense": ["a", "b", "c"], "bm25": ["b", "d"]}, k=60)
    scores = {f.chunk_id: f.score for f in fused}
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["d"] == pytest.approx(1 / 62)
    assert scores["c"] == pytest.approx(1 / 63)
    assert [f.chunk_id for f in fused] == ["b", "a", "d", "c"]  # a, d tie broken by best rank


def test_weights_two_to_one():
    fused = rrf({"dense": ["a", "b"], "bm25": ["b", "a"]}, k=0, weights={"bm25": 2.0})
    assert [(f.chunk_id, round(f.score, 6)) for f in fused] == [("b", 2.5), ("a", 2.0)]
    assert fused[0].contributions == {"dense": 0.5, "bm25": 2.0}


def test_missing_from_one_list_has_none_rank_and_no_contribution():
    [only] = [f for f in rrf({"dense": ["a"], "bm25": ["b"]}) if f.chunk_id == "a"]
    assert only.ranks == {"dense": 1, "bm25": None} and only.contributions == {"dense": 1 / 61}


def test_k_each_cuts_each_list_before_fusing():
    fused = rrf({"dense": ["a", "b", "c"], "bm25": ["c"]}, k_each=2)
    c = next(f for f in fused if f.chunk_id == "c")
    assert c.ranks == {"dense": None, "bm25": 1}


def test_exact_ties_fall_back_to_chunk_id():
    fused = rrf({"dense": ["z", "y"], "bm25": ["y", "z"]})
    assert [f.chunk_id for f in fused] == ["y", "z"]


def test_duplicate_in_one_list_counts_at_best_rank_and_inputs_are_untouched():
    lists = {"dense": ["a", "a", "b"], "bm25": []}
    fused = rrf(lists, top_k=1)
    assert lists == {"dense": ["a", "a", "b"], "bm25": []}
    assert fused[0].chunk_id == "a" and fused[0].score == pytest.approx(1 / 61)


@pytest.mark.parametrize("kwargs, message", [
    ({"k": -1}, "k must be >= 0, got -1"),
    ({"k_each": 0}, "k_each must be >= 1, got 0"),
    ({"weights": {"dense": -1.0}}, "got -1.0"),
    ({"weights": {"colbert": 1.0}}, "unknown"),
])
def test_bad_arguments_quote_the_value(kwargs, message):
    with pytest.raises(ValueError, match=message):
        rrf({"dense": ["a"], "bm25": []}, **kwargs)


def test_groups_fuse_as_one_entry_shown_by_their_best_member_hand_computed():
    # a1 and a2 are two chunks of one page A: dense likes a1, BM25 likes a2
    ranked = {"dense": ["a1", "b1", "a2"], "bm25": ["a2", "c1", "b1"]}
    groups = {"a1": "A", "a2": "A", "b1": "B", "c1": "C"}
    by_chunk = rrf(ranked, k=60)
    assert [f.chunk_id for f in by_chunk] == ["a2", "b1", "a1", "c1"]
    by_page = rrf(ranked, k=60, groups=groups)
    # page A: dense best rank 1 (a1) + BM25 best rank 1 (a2); shown by a2 (1/61 + 1/63 > 1/61)
    assert [f.chunk_id for f in by_page] == ["a2", "b1", "c1"]
    top = by_page[0]
    assert top.ranks == {"dense": 1, "bm25": 1}
    assert top.score == pytest.approx(2 / 61)
    assert top.contributions == {"dense": pytest.approx(1 / 61), "bm25": pytest.approx(1 / 61)}
    assert by_page[1].score == pytest.approx(1 / 62 + 1 / 63)


def test_ids_without_a_group_stay_entries_of_their_own():
    ranked = {"dense": ["x", "y"], "bm25": ["y", "x"]}
    assert [f.chunk_id for f in rrf(ranked, groups={})] == [f.chunk_id for f in rrf(ranked)]


def test_a_zero_weight_leaves_its_retriever_out_of_the_fusion():
    fused = rrf({"dense": ["a", "b"], "bm25": ["b", "c"]}, k=60, weights={"dense": 0.0})
    assert [f.chunk_id for f in fused] == ["b", "c"]  # "a" was only dense's
    assert [f.score for f in fused] == [pytest.approx(1 / 61), pytest.approx(1 / 62)]
    assert fused[0].ranks == {"bm25": 1} and fused[0].contributions == {"bm25": 1 / 61}


def test_every_weight_zero_is_an_error_quoting_the_weights():
    with pytest.raises(ValueError, match=r"'dense': 0.0, 'bm25': 0.0.*weighted 0"):
        rrf({"dense": ["a"], "bm25": ["b"]}, weights={"dense": 0.0, "bm25": 0.0})

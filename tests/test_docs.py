"""The generated docs are up to date with the code and data (regenerate: python -m aos_env.docs)."""

from pathlib import Path

from aos_env.docs import cards_markdown, observation_markdown, table_svg

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_cards_md_is_generated_from_data() -> None:
    assert (DOCS / "cards.md").read_text(encoding="utf-8") == cards_markdown()


def test_observation_md_matches_layout() -> None:
    assert (DOCS / "observation.md").read_text(encoding="utf-8") == observation_markdown()


def test_table_svg_is_generated() -> None:
    assert (DOCS / "table.svg").read_text(encoding="utf-8") == table_svg()


def test_rules_md_cites_every_clause() -> None:
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    spec_ids = [
        "R1.1", "R1.2", "R1.3", "R1.4", "R1.5", "R2.1", "R2.2", "R2.3", "R2.4", "R2.5", "R3.1.1", "R3.1.2",
        "R3.1.3", "R3.2.1", "R3.2.2", "R3.3.1", "R3.3.2", "R3.3.3", "R4.1", "R4.2", "R4.3", "R4.4", "R4.5",
        "R5.1", "R5.2", "R5.3", "R6.1", "R6.2", "R6.3", "R6.4", "R6.5", "R6.6", "R6.7", "R7.1", "R7.2", "R7.3",
        "R7.4", "R7.5", "R8.1", "R8.2", "R8.3", "R8.4", "R9.1", "R9.2", "R10.1", "R10.2", "R10.3", "R10.4",
    ]
    missing = [i for i in spec_ids if f"**{i}" not in text]
    assert not missing
    assert text.count("[decision]") >= 8

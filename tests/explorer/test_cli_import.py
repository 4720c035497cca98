"""`reasoning-explorer import`: a PDF written as a PageIndex corpus, a PageIndex tree given its pages' text, a walk
and an evaluation opening a PDF directly, and every bad input one line with exit 2, nothing written over."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.corpora import load_corpus
from tests.command_line import run_cli
from tests.explorer.corpora.pdf_maker import Bookmark, Line, make_pdf
from tests.explorer.corpora.test_pdf import BILLING, REFUNDS, SHIPPING, outline_pdf


def test_import_writes_a_pageindex_corpus_beside_the_pdf(tmp_path: Path) -> None:
    pdf = outline_pdf(tmp_path)
    out = run_cli("import", pdf)
    assert out.returncode == 0, out.stderr
    written = tmp_path / "handbook.json"
    assert out.stdout == (f"wrote {written}: 3 nodes from 3 pages (its outline); walk it: reasoning-explorer walk "
                          f"{written} \"your question\"\n")
    tree = json.loads(written.read_text(encoding="utf-8"))
    assert [n["node_id"] for n in tree["structure"]] == ["1-billing", "2-shipping"]
    assert tree["structure"][0]["nodes"][0] | {"summary": ""} == {
        "title": "1.1 Refunds", "node_id": "1-1-refunds", "start_index": 2, "end_index": 2, "summary": "",
        "text": "A refund is paid within ten days of the request.\nRefunds go back to the card that paid the invoice.",
    }
    corpus = load_corpus(written)
    assert corpus.format == "pageindex" and list(corpus.index.ids()) == list(load_corpus(pdf).index.ids())


def test_import_refuses_an_existing_corpus_without_force(tmp_path: Path) -> None:
    pdf = outline_pdf(tmp_path)
    existing = tmp_path / "kept.json"
    existing.write_text("[]", encoding="utf-8")
    out = run_cli("import", pdf, "-o", existing)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (f"reasoning-explorer: error: {existing} exists; add --overwrite to replace it, or give another "
                          "file with -o\n")
    assert existing.read_text(encoding="utf-8") == "[]"
    assert run_cli("import", pdf, "-o", existing, "--force").returncode == 0
    assert json.loads(existing.read_text(encoding="utf-8"))["structure"][0]["node_id"] == "1-billing"


def test_import_writes_only_a_json_corpus(tmp_path: Path) -> None:
    pdf = outline_pdf(tmp_path)
    for name in ("handbook.yaml", "handbook.md", "handbook"):  # a PageIndex tree there would not open as a corpus
        out = run_cli("import", pdf, "-o", tmp_path / name)
        assert (out.returncode, out.stdout) == (2, "")
        assert out.stderr == (f"reasoning-explorer: error: {tmp_path / name}: the corpus written is a PageIndex tree "
                              "JSON, which opens only as a .json file; give -o a name ending in .json\n")
        assert not (tmp_path / name).exists()


def test_import_never_writes_over_the_pdf(tmp_path: Path) -> None:
    pdf = outline_pdf(tmp_path)
    before = pdf.read_bytes()
    out = run_cli("import", pdf, "-o", pdf, "--force")
    assert out.returncode == 2
    assert out.stderr == (f"reasoning-explorer: error: the corpus {pdf} is the PDF ({pdf}); an output must not "
                          "overwrite an input: choose another file\n")
    assert pdf.read_bytes() == before


def test_a_pageindex_tree_gets_the_text_of_its_pages(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "report.pdf", [BILLING, REFUNDS, SHIPPING], page_numbers=True)
    tree = tmp_path / "report_structure.json"
    tree.write_text(json.dumps({"doc_name": "report.pdf", "structure": [
        {"title": "Billing", "node_id": "0001", "start_index": 1, "end_index": 2, "summary": "How we bill.",
         "nodes": [{"title": "Refunds", "node_id": "0002", "start_index": 2, "end_index": 2}]},
        {"title": "Shipping", "node_id": "0003", "start_index": 3, "end_index": 3},
    ]}), encoding="utf-8")
    out = run_cli("import", tree, "--pdf", pdf)
    assert out.returncode == 0, out.stderr
    filled = tmp_path / "report_structure.text.json"
    assert out.stdout.startswith(f"wrote {filled}: 3 nodes from 3 pages (the text of 3 nodes)")
    corpus = load_corpus(filled)
    assert corpus.index["0002"].content == (
        "1.1 Refunds\nA refund is paid within ten days of the request.\n"
        "Refunds go back to the card that paid the invoice.")
    assert corpus.index["0001"].content.startswith("1 Billing\nInvoices are sent")
    assert corpus.summary_of("0001") == "How we bill."  # the tree's own summary is kept
    assert corpus.summary_of("0003") == ("Parcels leave the warehouse every weekday at noon. Tracking numbers are "
                                         "emailed when the parcel leaves.")


def test_a_tree_whose_pages_are_not_in_the_pdf_is_one_line(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "short.pdf", [BILLING])
    tree = tmp_path / "tree.json"
    tree.write_text(json.dumps([{"title": "Far", "node_id": "9", "start_index": 4, "end_index": 5}]), encoding="utf-8")
    out = run_cli("import", tree, "--pdf", pdf)
    assert (out.returncode, out.stderr) == (2, f"reasoning-explorer: error: {tree}: node '9': pages 4–5 are not in "
                                               "the PDF (1 pages); give the PDF this tree was made from\n")
    assert not (tmp_path / "tree.text.json").exists()


def test_a_tree_whose_last_page_is_past_the_pdf_is_one_line(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "short.pdf", [BILLING])  # one page: the tree was made from a longer PDF
    tree = tmp_path / "tree.json"
    tree.write_text(json.dumps([{"title": "All", "node_id": "1", "start_index": 1, "end_index": 40}]),
                    encoding="utf-8")
    out = run_cli("import", tree, "--pdf", pdf)
    assert (out.returncode, out.stderr) == (2, f"reasoning-explorer: error: {tree}: node '1': pages 1–40 are not in "
                                               "the PDF (1 pages); give the PDF this tree was made from\n")
    assert not (tmp_path / "tree.text.json").exists()


def test_a_tree_that_is_no_pageindex_tree_is_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "short.pdf", [BILLING])
    cases = {
        "nodes": ('"nodes": 5', 'node at structure[0]: "nodes" must be a list of nodes, not a number; make it a JSON '
                                'list, or leave it out for a leaf'),
        "children": ('"nodes": [1, 2]', 'node at structure[0].nodes[0] must be an object with "node_id" and "title", '
                                        'not a number; write each node as a JSON object'),
    }
    for name, (nodes, problem) in cases.items():
        tree = tmp_path / f"{name}.json"
        tree.write_text('{"structure": [{"title": "All", "node_id": "1", "start_index": 1, "end_index": 1, '
                        f'{nodes}}}]}}', encoding="utf-8")
        for command in (("import", tree, "--pdf", pdf), ("walk", tree, "--pdf", pdf, "refunds")):
            out = run_cli(*command)
            assert (out.returncode, out.stdout, out.stderr) == (2, "", f"reasoning-explorer: error: {tree}: {problem}\n")
        assert not (tmp_path / f"{name}.text.json").exists()


def test_bad_pdfs_are_one_line_and_exit_2(tmp_path: Path) -> None:
    cases = {
        make_pdf(tmp_path / "locked.pdf", [BILLING], encrypted=True): "is encrypted (it needs a password)",
        make_pdf(tmp_path / "scan.pdf", [[]]): "holds no text (a scanned PDF?)",
        make_pdf(tmp_path / "none.pdf", []): "has no pages",
    }
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"PK\x03\x04 a zip file")
    cases[junk] = "is not a PDF"
    for path, problem in cases.items():
        out = run_cli("import", path)
        assert out.returncode == 2
        assert out.stderr.startswith(f"reasoning-explorer: error: {path}: {problem}")
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
        assert not path.with_suffix(".json").exists()


def test_walk_and_eval_open_a_pdf_directly(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "guide.pdf", [BILLING, REFUNDS, SHIPPING],
                   outline=(Bookmark("1 Billing", 0, (Bookmark("1.1 Refunds", 1),)), Bookmark("2 Shipping", 2)))
    walked = run_cli("walk", pdf, "how long does a refund take", "--navigator", "lexical:default", "--json")
    assert walked.returncode == 0, walked.stderr
    document = json.loads(walked.stdout)
    assert [e["node"]["id"] for e in document["events"] if e["event"] == "node_entered"][:2] == [
        "1-billing", "1-1-refunds"]
    questions = tmp_path / "guide.questions.yaml"
    questions.write_text(f"corpus: {pdf.name}\nquestions:\n  - id: refund\n    query: how long does a refund take\n"
                         "    expect: [1-1-refunds]\n", encoding="utf-8")
    evaluated = run_cli("eval", questions, "--navigator", "lexical:default")
    assert evaluated.returncode == 0, evaluated.stderr
    assert "hit rate 100% (1/1)" in evaluated.stdout


def test_layout_only_pdf_imports_from_its_layout(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "plain.pdf", [[Line("Terms of Service", 20, True), *BILLING], SHIPPING])
    out = run_cli("import", pdf, "-o", tmp_path / "terms.json")
    assert out.returncode == 0, out.stderr
    assert "(its layout)" in out.stdout
    corpus = load_corpus(tmp_path / "terms.json")
    assert list(corpus.index.ids()) == ["terms-of-service", "1-billing", "2-shipping"]


def test_walk_gives_a_pageindex_tree_its_pages_with_pdf(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "guide.pdf", [BILLING, REFUNDS, SHIPPING])
    tree = tmp_path / "guide_structure.json"
    tree.write_text(json.dumps({"structure": [
        {"title": "Billing", "node_id": "b", "start_index": 1, "end_index": 2,
         "nodes": [{"title": "Refunds", "node_id": "r", "start_index": 2, "end_index": 2}]},
        {"title": "Shipping", "node_id": "s", "start_index": 3, "end_index": 3},
    ]}), encoding="utf-8")
    walked = run_cli("walk", tree, "how long does a refund take", "--pdf", pdf, "--navigator", "lexical:default",
                     "--json")
    assert walked.returncode == 0, walked.stderr
    landed = json.loads(walked.stdout)["results"]
    assert [(r["id"], r["content"]) for r in landed] == [("r", (
        "1.1 Refunds\nA refund is paid within ten days of the request.\n"
        "Refunds go back to the card that paid the invoice."))]
    assert landed[0]["metadata"]["reasoningSummary"] == ("A refund is paid within ten days of the request. Refunds go "
                                                         "back to the card that paid the invoice.")
    assert load_corpus(tree).index["r"].content == "Covers page 2 of the source document."  # without the PDF


def test_pdf_option_on_a_corpus_that_is_no_tree_is_one_line(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "guide.pdf", [BILLING])
    corpus = tmp_path / "notes.md"
    corpus.write_text("# Notes\n\nSome words here.\n", encoding="utf-8")
    out = run_cli("walk", corpus, "words", "--pdf", pdf, "--navigator", "lexical:default")
    assert (out.returncode, out.stderr) == (2, f"reasoning-explorer: error: {corpus}: --pdf gives a PageIndex tree "
                                               f"(.json) its pages' text, and this is no .json; open {pdf} itself, "
                                               "or give the tree\n")


def test_import_of_a_tree_without_its_pdf_says_to_add_it(tmp_path: Path) -> None:
    tree = tmp_path / "tree.json"
    tree.write_text("[]", encoding="utf-8")
    out = run_cli("import", tree)
    assert (out.returncode, out.stderr) == (2, f"reasoning-explorer: error: {tree}: a PageIndex tree gets its text "
                                               "from its PDF; add --pdf FILE.pdf\n")

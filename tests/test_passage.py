"""Narrative answers (finrag.passage, finrag.narrate): the filing's own sentences that answer a
"why" or "what are" question, the change they explain, and nothing where no sentence answers."""

from __future__ import annotations

import pytest
from test_generate import FakeEndpoint, endpoint  # noqa: F401  (the fake chat endpoint)

from finrag.answer import Answer, Outcome
from finrag.generate import LLMSettings
from finrag.models import Chunk, Hit
from finrag.narrate import narrate
from finrag.passage import AMOUNT, CAUSE, LIST, YES_NO, form, quotes, sentences

# Home Depot's fiscal 2024 MD&A (Item 7, p. 30), as the filing prints it.
HD_GROSS = ("Gross profit increased $2.3 billion, or 4.6%, to $53.3 billion in fiscal 2024. "
            "Gross profit as a percent of net sales, or gross profit margin, was 33.4% for both "
            "fiscal 2024 and fiscal 2023, and primarily reflected lower transportation costs "
            "and lower shrink within our Primary segment, offset by the inclusion of SRS in our "
            "consolidated results.")
HD_TABLE_INTRO = ("The following table presents the percentage relationship between net sales "
                  "and major categories in our consolidated statements of earnings, including "
                  "gross margin.")
HD_MENTION = ("Our gross profit margin is affected by the mix of products we sell, and we "
              "monitor gross margin and operating expenses every quarter.")
# Best Buy's fiscal 2023 acquisitions note and a risk factor, as printed.
BBY_ACQUIRED = ("In fiscal 2022, we acquired all of the outstanding shares of Two Peaks, LLC "
                "d/b/a Yardbird Furniture (\u201cYardbird\u201d), a direct-to-consumer outdoor "
                "furniture company, on November 4, 2021, for net cash consideration of $79 "
                "million.")
BBY_RISK = ("Businesses we acquired, such as Current Health, could fail to deliver the results "
            "we expect, and we may not integrate them as planned.")
BBY_POLICY = ("Results of operations related to business combinations are included "
              "prospectively beginning with the date of acquisition and transaction costs "
              "related to business combinations are recorded within SG&A.")
EXHIBITS = ("Agreement and Plan of Merger, dated as of March 5, 2021, by and among Best Buy "
            "Co., Inc., Current Health Ltd. and the acquired company's holders.")


def hit(text: str, rank: int = 1, section: str = "Item 7", ticker: str = "HD",
        page: int = 30) -> Hit:
    chunk = Chunk(chunk_id=f"{ticker.lower()}{rank:02d}{page}" * 4, ticker=ticker,
                  company="The Home Depot, Inc." if ticker == "HD" else "Best Buy Co., Inc.",
                  fiscal_year=2024, chunk_type="narrative", section=section, page=page,
                  page_label=str(page), text=text, cik="354950", accession="0000354950-25-000085",
                  document="hd-20250202.htm")
    return Hit(chunk_id=chunk.chunk_id, rank=rank, score=1.0 / rank, chunk=chunk)


HD_WORDS = {"home", "depot", "hd"}
BBY_WORDS = {"best", "buy", "bby"}


@pytest.mark.parametrize("question, expected", [
    ("What drove Home Depot's gross margin change in fiscal 2024?", CAUSE),
    ("Why did Tesla's operating margin fall in 2024?", CAUSE),
    ("What are the geographies that Pepsico primarily operates in as of FY2022?", LIST),
    ("Who are the primary customers of Boeing as of FY2022?", LIST),
    ("Has Boeing reported any materially important ongoing legal battles from FY2022?", YES_NO),
    ("Tesla R&D expense 2024", None),
])
def test_the_form_of_a_question(question, expected):
    assert form(question) == expected


def test_a_why_question_gets_the_sentence_that_gives_the_cause():
    hits = [hit(HD_TABLE_INTRO, 1), hit(HD_MENTION, 2), hit(HD_GROSS, 3)]
    got = quotes("What drove Home Depot's gross margin change in fiscal 2024?", hits, HD_WORDS)
    assert [q.text for q in got] == [HD_GROSS.split(". ", 1)[1]]
    assert got[0].hit.chunk.page == 30


def test_a_sentence_that_only_shares_the_question_words_is_no_answer():
    hits = [hit(HD_TABLE_INTRO, 1), hit(HD_MENTION, 2)]
    assert quotes("What drove Home Depot's gross margin change in fiscal 2024?", hits,
                  HD_WORDS) == []


def test_a_list_answer_is_the_company_statement_not_a_hedge_a_policy_or_an_exhibit():
    question = "What are major acquisitions that Best Buy has done in FY2023, FY2022 and FY2021?"
    hits = [hit(EXHIBITS, 1, section="Item 15", ticker="BBY"),
            hit(BBY_RISK, 2, section="Item 1A", ticker="BBY"),
            hit(BBY_POLICY, 3, section="Item 8", ticker="BBY"),
            hit(BBY_ACQUIRED, 4, section="Item 8", ticker="BBY")]
    got = quotes(question, hits, BBY_WORDS)
    assert [q.text for q in got] == [BBY_ACQUIRED]
    assert quotes(question, hits[:3], BBY_WORDS) == []


def test_sentences_skip_table_rows_and_fragments():
    text = ("Net sales | 159,514 | 152,669. Table of Contents 30 Too short here. "
            "We expect the SRS acquisition to add about $6.4 billion of net sales in fiscal 2025.")
    assert sentences(text) == [
        "We expect the SRS acquisition to add about $6.4 billion of net sales in fiscal 2025."]


def _change() -> Outcome:
    return Outcome(Answer("change", 0.0, "percent", "+0.0 percentage points \u2014 Home Depot, "
                          "gross margin fiscal 2023 33.4% -> fiscal 2024 33.4%", 2024), None)


def test_the_answer_is_the_change_then_the_cited_sentence():
    q = "What drove Home Depot's gross margin change in fiscal 2024?"
    hits = [hit(HD_GROSS, 1)]
    out = narrate(q, CAUSE, _change(), quotes(q, hits, HD_WORDS), hits)
    a = out.answer
    assert a.kind == "passage" and a.value == 0.0
    assert a.text.startswith("+0.0 percentage points") and "lower transportation costs" in a.text
    c = a.sentences[0]["citation"]
    assert (c["ticker"], c["fiscal_year"], c["section"], c["page_label"]) == (
        "HD", 2024, "Item 7", "30")
    assert c["url"] == ("https://www.sec.gov/Archives/edgar/data/354950/000035495025000085/"
                        "hd-20250202.htm")


def test_no_sentence_no_answer_and_the_change_is_kept_in_the_reason():
    out = narrate("What drove Home Depot's gross margin change?", CAUSE, _change(), [],
                  [hit(HD_MENTION)])
    assert out.answer is None
    assert "no sentence in the top passages gives the cause" in out.reason
    assert "33.4%" in out.reason


def test_a_generator_rewrites_only_with_sentences_its_passage_supports(endpoint):  # noqa: F811
    q = "What drove Home Depot's gross margin change in fiscal 2024?"
    hits = [hit(HD_GROSS, 1)]
    endpoint.reply = ("Gross profit margin was 33.4% for both fiscal 2024 and fiscal 2023, "
                      "primarily reflecting lower transportation costs and lower shrink [1]. "
                      "Margins rose because of strong pricing power [1].")
    out = narrate(q, CAUSE, _change(), quotes(q, hits, HD_WORDS), hits,
                  LLMSettings(url=endpoint.url))
    a = out.answer
    assert a.kind == "generated"
    assert [s["text"] for s in a.sentences] == [
        "Gross profit margin was 33.4% for both fiscal 2024 and fiscal 2023, primarily "
        "reflecting lower transportation costs and lower shrink."]
    assert a.sentences[0]["citation"]["page_label"] == "30"


def test_a_generator_that_fails_leaves_the_filing_sentences_and_says_why():
    q = "What drove Home Depot's gross margin change in fiscal 2024?"
    hits = [hit(HD_GROSS, 1)]
    out = narrate(q, CAUSE, _change(), quotes(q, hits, HD_WORDS), hits,
                  LLMSettings(url="http://127.0.0.1:9/v1", timeout_s=2))
    assert out.answer.kind == "passage" and "lower shrink" in out.answer.sentences[0]["text"]
    assert "127.0.0.1:9" in out.reason and "filing's own sentences are shown" in out.reason


def test_a_company_abbreviation_does_not_end_a_sentence():
    text = ("In fiscal 2022, we acquired all of the outstanding shares of Current Health Ltd. "
            "(\u201cCurrent Health\u201d), a care-at-home technology platform, on November 2, "
            "2021, for net cash consideration of $389 million. The U.S. Government is a customer.")
    assert sentences(text) == [
        "In fiscal 2022, we acquired all of the outstanding shares of Current Health Ltd. "
        "(\u201cCurrent Health\u201d), a care-at-home technology platform, on November 2, 2021, "
        "for net cash consideration of $389 million.", "The U.S. Government is a customer."]


def test_a_narrower_line_does_not_explain_the_line_asked_about():
    """Tesla's MD&A explains its automotive leasing revenue; that is not why automotive revenue
    changed. "Gross profit margin" still is the gross margin."""
    leasing = hit("Automotive leasing revenue decreased $293 million, or 14%, in the year ended "
                  "December 31, 2024, primarily due to lower direct sales-type leasing "
                  "deliveries.", 1, ticker="TSLA")
    assert quotes("Why did Tesla's automotive revenue decline in 2024?", [leasing],
                  {"tesla", "tsla"}) == []
    assert quotes("What drove Home Depot's gross margin change in fiscal 2024?",
                  [hit(HD_GROSS, 1)], HD_WORDS)


def test_a_policy_that_names_nothing_is_not_a_list():
    policy = hit("We evaluate opportunities to acquire or invest in complementary businesses, "
                 "services, technologies and intellectual property.", 1, ticker="BBY")
    done = hit("In fiscal 2024, we acquired SRS, a leading residential specialty trade "
               "distribution company, for $18.3 billion.", 2, ticker="BBY")
    question = "What acquisitions did Best Buy complete in fiscal 2024?"
    assert [q.text for q in quotes(question, [policy, done], BBY_WORDS)] == [done.chunk.text]


@pytest.mark.parametrize("question, expected", [
    ("What fueled Nvidia's Data Center revenue surge in fiscal 2025?", CAUSE),
    ("Why did Humira sales fall so sharply in the U.S. in 2024?", CAUSE),  # not cut at "U.S."
    ("In which countries are Apple's products manufactured?", LIST),
    ("How many people does Amazon employ?", AMOUNT),
])
def test_the_form_of_more_questions(question, expected):
    assert form(question) == expected


# Words an analyst uses for the change ("contract", "fall") are not the subject: the gross
# margin is, and Nike's MD&A bullet gives its cause.
NKE_BULLET = ("Lower NIKE Brand ASP (decreasing gross margin approximately 180 basis points), "
              "primarily due to higher discounts and changes in channel mix, partially offset by "
              "strategic pricing actions;")


def test_the_change_words_of_a_why_question_are_not_its_subject():
    got = quotes("Why did Nike's gross margin contract in fiscal 2025?", [hit(NKE_BULLET)],
                 {"nike", "inc"})
    assert [q.text for q in got] == [NKE_BULLET]


def test_a_cost_line_does_not_explain_the_revenue_and_a_parenthesis_sits_inside_a_phrase():
    cost = ("Cost of automotive sales revenue decreased $3.25 billion, or 5%, in 2024 as "
            "compared to 2023 due to lower deliveries.")
    stelara = ("The decline of STELARA (ustekinumab) sales was driven by share loss primarily "
               "due to European biosimilar entrants.")
    assert quotes("Why did Tesla's automotive sales revenue fall in 2024?", [hit(cost)],
                  {"tesla"}) == []
    got = quotes("Why did Stelara sales decline in 2024?", [hit(stelara)], {"johnson"})
    assert [q.text for q in got] == [stelara]


def test_a_list_stated_by_the_company_as_subject_is_quoted_with_the_items_after_its_colon():
    segments = ("The Company's operations are conducted in three reportable segments: Walmart "
                "U.S., Walmart International and Sam's Club U.S.")
    charge = ("At the acquisition date, we recorded a $2.1 billion charge representing an "
              "acquired IPR&D asset in Research and development expenses.")
    four = ("We have four reportable segments across our two businesses: \u2022 UnitedHealthcare, "
            "which includes Employer & Individual; \u2022 Optum Health; \u2022 Optum Insight; "
            "\u2022 Optum Rx.")
    assert [q.text for q in quotes("What are Walmart's reportable segments?", [hit(segments)],
                                   {"walmart"})] == [segments]
    assert quotes("Which companies did Pfizer acquire?", [hit(charge)], {"pfizer"}) == []
    got = quotes("What are UnitedHealth's reportable segments?", [hit(four)], {"unitedhealth"})
    assert got[0].text.endswith("Optum Insight; Optum Rx.")


def test_a_count_is_the_company_statement_with_a_number_after_its_date():
    employ = ("As of December 31, 2024, we employed approximately 1,556,000 full-time and "
              "part-time employees.")
    vague = "Our employees are critical to our success and we invest in their development."
    got = quotes("How many people does Amazon employ?", [hit(vague), hit(employ, rank=2)],
                 {"amazon"})
    assert [q.text for q in got] == [employ]


def test_a_modal_in_a_clause_is_not_a_hedge_but_a_risk_is():
    compete = ("We compete with a broad set of activities for leisure time, including video "
               "providers, streaming providers, video gaming providers and social media, that "
               "our members could choose in their free time.")
    risk = ("We compete with many companies, including streaming providers, studios and "
            "networks, and competition could adversely affect our results.")
    q = "Who does Netflix consider its competition?"
    assert [x.text for x in quotes(q, [hit(compete)], {"netflix"})] == [compete]
    assert quotes(q, [hit(risk)], {"netflix"}) == []


def test_a_cost_line_a_year_and_thousands_do_not_pass_for_an_answer():
    cost = ("Cost of automotive sales revenue increased $3.25 billion in 2024 due to higher "
            "deliveries and higher raw material costs.")
    assert quotes("Why did Tesla's revenue rise in 2024?", [hit(cost)], {"tesla"}) == []
    year = "In 2024, our employees took part in volunteer programs across our communities."
    assert quotes("How many employees does Amazon have?", [hit(year)], {"amazon"}) == []
    money = "Our products include: $391,035,000 of sales in the fiscal year just ended."
    assert quotes("What are Apple's products?", [hit(money)], {"apple"}) == []


def test_an_item_quoted_inside_the_sentence_that_lists_it_is_not_quoted_again():
    text = ("Gross margin decreased 190 basis points due to the following: \u2022 Lower NIKE "
            "Brand ASP (decreasing gross margin approximately 180 basis points), primarily due to "
            "higher discounts; \u2022 Higher other costs (decreasing gross margin approximately "
            "90 basis points), primarily due to higher inventory reserves.")
    got = quotes("Why did Nike's gross margin contract in fiscal 2025?", [hit(text)], {"nike"})
    assert got and got[0].text.startswith("Gross margin decreased 190 basis points")
    assert got[0].text.endswith("higher inventory reserves.")
    assert len(got) == 1  # its two bullets are in it already


# Amazon's 2024 MD&A (Item 7, p. 24): each segment's change, then a sentence that explains it
# without naming the segment again.
AMZN_SEGMENTS = (
    "North America sales increased 10% in 2024, compared to the prior year. The sales growth "
    "primarily reflects increased unit sales, including sales by third-party sellers, advertising "
    "sales, and subscription services. AWS sales increased 19% in 2024, compared to the prior "
    "year. The sales growth primarily reflects increased customer usage, partially offset by "
    "pricing changes primarily driven by long-term customer contracts.")
AMZN_WORDS = {"amazon", "com", "amzn"}


def test_a_cause_that_refers_back_to_the_change_is_quoted_with_it():
    got = quotes("What was behind AWS's sales growth in 2024?",
                 [hit(AMZN_SEGMENTS, ticker="AMZN", page=24)], AMZN_WORDS)
    assert [q.text for q in got] == [
        "AWS sales increased 19% in 2024, compared to the prior year. The sales growth "
        "primarily reflects increased customer usage, partially offset by pricing changes "
        "primarily driven by long-term customer contracts."]
    # North America's cause explains North America, not AWS, and the operating margin is
    # explained by neither
    assert "unit sales" in quotes("Why did North America sales grow in 2024?",
                                  [hit(AMZN_SEGMENTS, ticker="AMZN")], AMZN_WORDS)[0].text
    assert quotes("What drove Amazon's operating margin change in 2024?",
                  [hit(AMZN_SEGMENTS, ticker="AMZN")], AMZN_WORDS) == []


# Coca-Cola's 2024 Item 1 (Competition), as printed.
KO_COMPETITION = (
    "Competitive products include all alcohol ready-to-drink beverages containing various "
    "alcohol bases. Other significant competitors include, but are not limited to, Nestlé S.A., "
    "Keurig Dr Pepper Inc., Danone S.A., Suntory Beverage & Food Limited, Anheuser-Busch InBev "
    "and Red Bull GmbH. We compete against numerous regional and local companies. These "
    "include companies that, like our Company, compete globally in multiple geographic areas, "
    "as well as businesses that are primarily regional. Our competitive strengths include "
    "leading brands with high levels of consumer acceptance; a worldwide network of bottlers "
    "and distributors of Company products; sophisticated marketing capabilities; and a "
    "talented group of dedicated associates.")
KO_WORDS = {"coca", "cola", "coca-cola", "ko"}


def test_a_list_whose_subject_is_what_is_asked_is_quoted_and_an_adjective_is_not_the_noun():
    got = quotes("Who are Coca-Cola's main competitors?",
                 [hit(KO_COMPETITION, ticker="KO", section="Item 1")], KO_WORDS)
    assert [q.text[:38] for q in got] == ["Other significant competitors include,"]
    # "competitive" and "compete" share the stem but name no competitor; asked for, the
    # adjective is the answer
    strengths = quotes("What are Coca-Cola's competitive strengths?",
                       [hit(KO_COMPETITION, ticker="KO", section="Item 1")], KO_WORDS)
    assert [q.text[:29] for q in strengths] == ["Our competitive strengths inc"]


def test_a_sentence_that_points_elsewhere_is_no_answer():
    pointer = ("Further information on our business and reportable segments is presented in "
               "Part I, Item 1, \u201cBusiness\u201d and in Note 14 of the Notes to the "
               "Consolidated Financial Statements.")
    listed = ("We have four reportable segments across our two businesses: Optum Health; Optum "
              "Insight; Optum Rx; and UnitedHealthcare.")
    got = quotes("What are UnitedHealth Group's reportable segments?",
                 [hit(pointer, rank=1), hit(listed, rank=2)], {"unitedhealth", "group", "unh"})
    assert [q.text for q in got] == [listed]


def test_a_count_of_a_part_is_not_the_count_asked_for():
    part = "Over 240,000 Amazon employees around the world have participated in Career Choice."
    total = ("As of December 31, 2024, we employed approximately 1,556,000 full-time and "
             "part-time employees.")
    asked = "How many people does Amazon employ?"
    assert quotes(asked, [hit(part, ticker="AMZN")], AMZN_WORDS) == []
    assert [q.text for q in quotes(asked, [hit(part, ticker="AMZN", rank=1),
                                           hit(total, ticker="AMZN", rank=2)],
                                   AMZN_WORDS)] == [total]


# Apple's 2024 Note 1 (p. 48) and Tesla's 2024 Item 1 (p. 9) and Item 1A (p. 17), as printed.
AAPL_MADE = ("Substantially all of the Company\u2019s hardware products are manufactured by "
             "outsourcing partners that are located primarily in China mainland, India, Japan, "
             "South Korea, Taiwan and Vietnam.")
AAPL_MENTION = ("The Company\u2019s hardware products compete in markets across many countries, "
                "and its manufacturing partners operate in several of them.")
TSLA_PLANTS = ("We currently have manufacturing facilities in the U.S. in California, New York, "
               "Texas and Nevada.")
TSLA_RISK = ("We will need to achieve the output rates we have planned at our manufacturing "
             "facilities in California, Nevada, Texas, China and Germany.")


def test_a_question_of_where_is_answered_by_a_sentence_that_names_places():
    got = quotes("In which countries are Apple's hardware products actually manufactured?",
                 [hit(AAPL_MENTION, rank=1, ticker="AAPL"), hit(AAPL_MADE, rank=2, ticker="AAPL")],
                 {"apple", "aapl"})
    assert [q.text for q in got] == [AAPL_MADE]  # the one that names countries
    where = quotes("Where does Tesla have manufacturing plants?",
                   [hit(TSLA_RISK, rank=1, section="Item 1A", ticker="TSLA"),
                    hit(TSLA_PLANTS, rank=2, section="Item 1", ticker="TSLA")], {"tesla", "tsla"})
    assert [q.text for q in where] == [TSLA_PLANTS]  # not the risk factor restating it
    assert form("Where does Tesla have manufacturing plants?") == LIST


def test_place_names_are_whole_names():
    from finrag.places import places

    assert places("China mainland, India, South Korea and the U.S.") == {
        "china mainland", "india", "south korea", "u.s."}
    assert places("Georgia-Pacific and the Company's Chinese suppliers") == set()
    # a place is written as a name, and is not the first word of another name
    assert places("We process turkey at our plants in Willmar, Minnesota") == {"minnesota"}
    assert places("Georgia Power, Texas Instruments, Jordan Brand and fine china") == set()


def test_a_quote_that_answers_one_part_of_a_two_part_question_is_no_answer():
    segments = ("Our operations are conducted in three reportable segments: Walmart U.S., "
                "Walmart International and Sam's Club U.S.")
    words = {"walmart", "wmt"}
    assert quotes("What are Walmart's reporting segments?", [hit(segments)], words)
    assert quotes("What are Walmart's reporting segments, and in which markets does it "
                  "operate?", [hit(segments)], words) == []


# Meta's 2024 MD&A (Item 7, pp. 59 and 72), as printed.
META_TOTAL = ("Total revenue for 2024 was $164.50 billion, an increase of 22% compared to 2023, "
              "due to an increase in advertising revenue.")
META_AD = ("Advertising revenue in 2024 increased $28.68 billion, or 22%, compared to 2023 due "
           "to increases in ad impressions delivered and average price per ad.")
META_AHEAD = ("We anticipate that future advertising revenue will be driven by a combination of "
              "price and ad impressions delivered.")
AMD_OFFSET = ("This growth was partially offset by a 10% decrease in Client segment revenue "
              "primarily due to lower processor shipments driven by a weak PC market.")


def test_what_changed_comes_before_its_cause_and_an_expectation_is_no_cause():
    words = {"meta", "platforms"}
    asked = "Why did Meta's advertising revenue grow 22% in 2024?"
    # total revenue grew because of advertising revenue: that explains the total, not it
    assert quotes(asked, [hit(META_TOTAL, ticker="META")], words) == []
    assert quotes(asked, [hit(META_AHEAD, ticker="META")], words) == []
    got = quotes(asked, [hit(META_TOTAL, 1, ticker="META"), hit(META_AHEAD, 2, ticker="META"),
                         hit(META_AD, 3, ticker="META")], words)
    assert [q.text for q in got] == [META_AD]
    # "offset by" brings in a change of its own, named before its cause
    assert [q.text for q in quotes("AMD's Client segment revenue fell in 2022 - why?",
                                   [hit(AMD_OFFSET, ticker="AMD")], {"amd"})] == [AMD_OFFSET]


def test_who_the_competitors_are_only_names_say():
    ibm = ("A summary of the competitive environment for each business segment is included "
           "below: Software: The depth, breadth, and innovation of our software offerings, "
           "coupled with our global reach, help differentiate our offerings from our "
           "competitors.")
    named = ("Our principal competitors in software include Alphabet (Google), Amazon, "
             "Microsoft, Oracle, Salesforce and SAP.")
    words = {"ibm", "international", "business", "machines"}
    asked = "Who are IBM's main competitors in software?"
    assert quotes(asked, [hit(ibm, ticker="IBM")], words) == []
    assert [q.text for q in quotes(asked, [hit(ibm, 1, ticker="IBM"),
                                           hit(named, 2, ticker="IBM")], words)] == [named]


def test_how_and_a_participle_asks_for_an_amount_the_filing_states():
    assert form("How unionized is Union Pacific's workforce?") == AMOUNT
    assert form("How does IBM compete?") is None  # a manner, not an amount
    unions = ("Union Pacific works with 13 major rail unions, representing approximately 84% "
              "of our workforce.")
    got = quotes("How unionized is Union Pacific's workforce?", [hit(unions, ticker="UNP")],
                 {"union", "pacific", "unp"})
    assert [q.text for q in got] == [unions]


def test_geographies_are_regions_not_the_countries_of_the_largest_operations():
    countries = ("We make, market and sell beverages and convenient foods in more than 200 "
                 "countries, with our largest operations in the United States, Mexico, Canada, "
                 "China and the United Kingdom.")
    regions = ("We operate in three geographic regions: North America, Europe and Asia "
               "Pacific.")
    words = {"pepsico", "pep"}
    asked = "What are the geographies that Pepsico primarily operates in?"
    assert quotes(asked, [hit(countries, ticker="PEP")], words) == []
    assert [q.text for q in quotes(asked, [hit(countries, 1, ticker="PEP"),
                                           hit(regions, 2, ticker="PEP")], words)] == [regions]
    assert quotes("In which countries does PepsiCo have its largest operations?",
                  [hit(countries, ticker="PEP")], words)


def test_what_industry_is_answered_by_the_company_describing_itself():
    itself = ("Today, we are a global leader in developing and producing responsible packaging "
              "for food, beverage, pharmaceutical, medical, home and personal-care products.")
    legal = ("Amcor plc is a public limited company incorporated under the Laws of the "
             "Bailiwick of Jersey in the Channel Islands.")
    mention = ("The main methods of competition in the general packaging industry include "
               "price, innovation, sustainability, service, and quality.")
    words = {"amcor", "amcr", "plc"}
    asked = "What industry does AMCOR primarily operate in?"
    got = quotes(asked, [hit(legal, 1, ticker="AMCR"), hit(mention, 2, ticker="AMCR"),
                         hit(itself, 3, ticker="AMCR")], words)
    assert [q.text for q in got] == [itself]
    assert quotes(asked, [hit(legal, ticker="AMCR"), hit(mention, 2, ticker="AMCR")],
                  words) == []



def test_review_cases_a_bullet_list_a_pairing_a_share_and_an_offset():
    # bullets that are whole sentences are read on, not cut after the first
    bullets = ("We have three reportable segments: \u2022 North America, which includes our "
               "stores in the U.S. and Canada. \u2022 International, which includes our stores "
               "outside North America. \u2022 AWS, which sells compute and storage.")
    got = quotes("What are Acme's reportable segments?", [hit(bullets, ticker="ACME")],
                 {"acme"})
    assert got and "AWS, which sells" in got[0].text
    # a semicolon list whose last item sits past a break after "and"
    broken = ("We have four reportable segments: Optum Health; Optum Insight; Optum Rx; and"
              "\n\nUnitedHealthcare, which includes UnitedHealthcare Employer & Individual."
              "\n\nOptum Optum is a health services business.")
    got = quotes("What are UnitedHealth Group's reportable segments?", [hit(broken)],
                 {"unitedhealth", "group", "unh"})
    assert got[0].text.endswith("and UnitedHealthcare, which includes UnitedHealthcare "
                                "Employer & Individual.")
    # "The growth in net sales" explains net sales, not the operating expenses before it
    other = ("Operating expenses increased 8% in 2024 compared to the prior year. The growth "
             "in net sales primarily reflects higher unit volumes in Europe.")
    assert quotes("Why did Acme's operating expenses increase in 2024?",
                  [hit(other, ticker="ACME")], {"acme"}) == []
    # a share of the whole, stated before the company names itself, is the amount asked
    share = "Approximately 84% of our workforce is represented by labor unions."
    assert [q.text for q in quotes("How unionized is Acme's workforce?",
                                   [hit(share, ticker="ACME")], {"acme"})] == [share]
    # what "offset by" offsets is given no cause
    offset = ("Cloud revenue increased 12%, partially offset by a decrease in hardware revenue "
              "due to lower demand for servers.")
    assert quotes("Why did Acme's cloud revenue increase in 2024?",
                  [hit(offset, ticker="ACME")], {"acme"}) == []


# Sentences of real 10-Ks (the probe of FinanceBench's question templates over 59 filings,
# docs/measurements.md): each mentions the customers or the acquisitions asked about.
CUSTOMERS_MENTIONED = [
    ("HD", "We offer our customers a wide assortment of building materials, home improvement "
           "products, lawn and garden products, décor products, and facilities MRO products, "
           "in stores and online."),
    ("MGM", "MGM Rewards, our customer loyalty program, is a tiered program and allows "
            "customers to qualify for benefits across our participating resorts."),
    ("GOOGL", "Arrangements with Multiple Performance Obligations Our contracts with customers "
              "may include multiple performance obligations."),
    ("WFC", "In fourth quarter 2024, the Company received one wire deposit into a customer bank "
            "account totaling $500,000 related to the customer's provision of legal services."),
]
CUSTOMERS_STATED = [
    ("PG", "Our largest customer, Walmart Inc. and its affiliates, accounted for consolidated "
           "net sales of approximately 16% in 2025 and 2024 and 15% in 2023."),
    ("NKE", "During fiscal 2021, our three largest United States customers accounted for "
            "approximately 24% of sales in the United States."),
    ("MSFT", "Our customers include individual consumers, small- and medium-sized "
             "organizations, large global enterprises, public sector institutions, Internet "
             "service providers, application developers, and OEMs."),
]


@pytest.mark.parametrize("ticker, text", CUSTOMERS_MENTIONED)
def test_a_sentence_that_only_mentions_the_customers_does_not_say_who_they_are(ticker, text):
    asked = f"Who are the primary customers of {ticker} as of FY2024?"
    assert quotes(asked, [hit(text, ticker=ticker)], {ticker.lower()}) == []


@pytest.mark.parametrize("ticker, text", CUSTOMERS_STATED)
def test_who_the_customers_are_is_stated_by_a_verb_or_a_rank(ticker, text):
    asked = f"Who are the primary customers of {ticker} as of FY2024?"
    assert [q.text for q in quotes(asked, [hit(text, ticker=ticker)], {ticker.lower()})] == [
        text]


def test_an_acquisition_answer_names_what_was_acquired():
    policy = hit("Acquisitions and Divestitures Acquisitions: 3M makes acquisitions of certain "
                 "businesses from time to time that are aligned with its strategic intent with "
                 "respect to, among other factors, growth markets and adjacent product lines or "
                 "technologies.", 1, ticker="MMM")
    shipped = hit("We ship merchandise purchased by customers on our eCommerce platforms by a "
                  "number of methods from multiple locations, including in India and China.", 2,
                  ticker="MMM")
    done = hit("In February 2019, 3M completed the acquisition of the technology business of "
               "M*Modal for cash of approximately $0.7 billion.", 3, ticker="MMM")
    asked = "What are major acquisitions that 3M has done in FY2019, FY2018 and FY2017?"
    assert [q.text for q in quotes(asked, [policy, shipped, done], {"3m"})] == [done.chunk.text]
    assert quotes(asked, [policy, shipped], {"3m"}) == []
    # an acquisition of another time: an officer's biography, a later year's deal
    bio = hit("Ms. Santilli joined 3M in 2001 following 3M's acquisition of the Quaker Oats "
              "Company.", 1, section="Item 4", ticker="MMM")
    assert quotes(asked, [bio], {"3m"}) == []
    earlier = "What are major acquisitions that 3M has done in FY2018, FY2017 and FY2016?"
    assert quotes(earlier, [done], {"3m"}) == []


def test_a_pdf_sentence_that_lost_its_space_ends_at_its_period():
    """PDF text often runs sentences together ("equipment.The Company"); the next sentence is
    not part of the answer."""
    text = ("Each NIKE Brand geographic segment operates predominantly in one industry: the "
            "design, development, marketing and selling of athletic footwear, apparel and "
            "equipment.The Company's reportable operating segments for the NIKE Brand are: "
            "North America; Europe, Middle East & Africa; Greater China; and Asia Pacific & "
            "Latin America.")
    assert sentences(text)[0].endswith("apparel and equipment.")
    asked = "What are the geographies that Nike primarily operates in as of FY2019?"
    got = [q.text for q in quotes(asked, [hit(text, ticker="NKE")], {"nike"})]
    assert got and all(not q.startswith("Each NIKE Brand") for q in got)


def test_a_cause_is_of_the_year_asked_says_which_way_and_is_no_table_row():
    """From the probe: AMD's FY2015 10-K explains 2014's gross margin too; Verizon defines its
    segment margin with "reflects"; PepsiCo's table runs into the sentence after it."""
    prior = hit("Gross margin in 2014 was adversely impacted by lower average gross margins in "
                "our Enterprise, Embedded and Semi-Custom segment driven by increased sales of "
                "lower margin semi-custom SoC products.", 1, ticker="AMD")
    this = hit("Gross margin in 2015 was adversely impacted by an inventory write-down of $65 "
               "million, which was primarily the result of lower anticipated demand for "
               "older-generation APUs.", 2, ticker="AMD")
    asked = "What drove gross margin change as of FY2015 for AMD?"
    assert [q.text for q in quotes(asked, [prior, this], {"amd"})] == [this.chunk.text]
    compared = hit("Our operating ratio of 59.9% improved 2.4 points compared to 2023 driven by "
                   "productivity initiatives, core pricing gains, and lower fuel prices.", 1,
                   ticker="UNP")  # the year before, named as what it compares with
    assert quotes("What was behind the improvement in Union Pacific's operating ratio to 59.9% in "
                  "2024?",
                  [compared],
                  {"union", "pacific"})
    definition = hit("Segment operating income margin reflects the profitability of the segment "
                     "as a percentage of revenue.", 1, ticker="VZ")
    assert quotes("What drove operating margin change as of FY2021 for Verizon?", [definition],
                  {"verizon"}) == []
    row = hit("Consolidated Net Revenue and Operating Profit 2022 2021 Change Net revenue "
              "$ 86,392 $ 79,474 9 % Operating profit $ 11,512 $ 11,162 3 % Operating margin "
              "13.3 % 14.0 % (0.7) reflecting the key drivers of net revenue.", 1, ticker="PEP")
    assert sentences(row.chunk.text) == []


def test_a_numbered_list_after_as_follows_is_the_list_not_a_pointer_to_a_table():
    """PepsiCo's FY2022 Item 1 states its divisions inline, "as follows: 1) ...; 2) ..."; each
    item described, so the list runs past the 90 words of a sentence."""
    text = ("We are organized into seven reportable segments (also referred to as divisions), "
            "as follows: 1) Frito-Lay North America (FLNA), which includes our branded "
            "convenient food businesses in the United States and Canada; 2) Quaker Foods North "
            "America (QFNA), which includes our branded convenient food businesses, such as "
            "cereal, rice, pasta and other branded food, in the United States and Canada; 3) "
            "PepsiCo Beverages North America (PBNA), which includes our beverage businesses in "
            "the United States and Canada; 4) Latin America (LatAm), which includes all of our "
            "beverage and convenient food businesses in Latin America; 5) Europe, which "
            "includes all of our beverage and convenient food businesses in Europe.")
    got = quotes("What are PepsiCo's reportable segments?", [hit(text, ticker="PEP")],
                 {"pepsico"})
    assert [q.text for q in got] == [text]
    table = ("Net revenue and operating profit of each division are as follows: Net revenue "
             "and operating profit for each segment are presented below.")
    assert quotes("What are PepsiCo's reportable segments?", [hit(table, ticker="PEP")],
                  {"pepsico"}) == []


@pytest.mark.parametrize("ticker, words, text, answers", [
    # how Item 1 opens, in the probe's filings: the company says what it is or makes
    ("BA", {"boeing"}, "Business The Boeing Company, together with its subsidiaries (herein "
     "referred to as “Boeing,” the “Company,” “we,” “us,” “our”), is one of the world’s major "
     "aerospace firms.", True),
    ("PG", {"procter", "gamble"}, "The Procter & Gamble Company (the Company) is a world-leading "
     "multinational consumer goods company focused on providing trusted, branded products.", True),
    ("HD", {"home", "depot"}, "The Home Depot, Inc. is the world’s largest home improvement "
     "retailer based on net sales for fiscal 2024.", True),
    ("TSLA", {"tesla"}, "We design, develop, manufacture, sell and lease high-performance fully "
     "electric vehicles and energy generation and storage systems.", True),
    # its legal form, a ranking that names no field, how it sells
    ("JNJ", {"johnson"}, "Johnson & Johnson is a holding company, with operating companies "
     "conducting business in virtually all countries of the world.", False),
    ("WFC", {"wells", "fargo"}, "Wells Fargo & Company is a corporation organized under the laws "
     "of Delaware and a financial holding company and a bank holding company.", False),
    ("IBM", {"ibm"}, "Overall, the company is the leader or among the leaders in each of our "
     "business segments.", False),
    ("ADBE", {"adobe"}, "We market and distribute our products through sales channels, which "
     "include distributors, retailers and software developers.", False),
])
def test_what_industry_is_the_company_saying_what_it_is_or_makes(ticker, words, text, answers):
    got = quotes(f"What industry does {ticker} primarily operate in?",
                 [hit(text, section="Item 1", ticker=ticker)], words | {ticker.lower()})
    assert [q.text for q in got] == ([text] if answers else [])


def test_geographies_are_where_the_company_says_it_operates_sells_or_is_organized():
    """Apple's segments are its regions ("consist of the Americas, Europe, Greater China, Japan
    and Rest of Asia Pacific") though the sentence never says "operate"; regions named for its
    customers' demand (Boeing) or its capital spending (3M) are not where it operates."""
    asked = "What are the geographies that {} primarily operates in as of FY2024?"
    segments = ("The Company’s reportable segments consist of the Americas, Europe, Greater "
                "China, Japan and Rest of Asia Pacific.")
    assert [q.text for q in quotes(asked.format("Apple"), [hit(segments, ticker="AAPL")],
                                   {"apple"})] == [segments]
    demand = ("We are seeing a strong recovery in travel demand for our airline customers in "
              "North and South America, the Middle East, and Europe.")
    spending = ("In 2024, 63% of our capital spending was within the United States, followed "
                "by Europe, Middle East and Africa; Asia Pacific; and Latin America/Canada.")
    assert quotes(asked.format("Boeing"), [hit(demand, ticker="BA")], {"boeing"}) == []
    assert quotes(asked.format("3M"), [hit(spending, ticker="MMM")], {"3m"}) == []


@pytest.mark.parametrize("text", [
    "The Company is the defendant in several lawsuits brought by a competitor company.",
    "Revenue growth is the company's top priority for the coming fiscal year.",
    "We are a party to many contracts with a provider of cloud services.",
])
def test_a_sentence_about_the_company_that_is_not_what_it_is_names_no_industry(text):
    assert quotes("What industry does Acme primarily operate in?",
                  [hit(text, section="Item 1", ticker="ACME")], {"acme"}) == []


def test_a_date_is_no_row_and_a_purchase_from_a_supplier_is_no_acquisition():
    dated = ("Net sales increased in each of the years ended December 31, 2023, 2022 and 2021, "
             "primarily driven by higher volumes.")
    assert sentences(dated) == [dated]
    bought = hit("In fiscal 2024, we purchased equipment from Siemens for our new plants, for "
                 "$120 million.", ticker="ACME")
    acquisition = hit("On December 22, 2024, we completed the acquisition of Abiomed, a "
                      "provider of heart pumps, for $16.5 billion.", 2, ticker="ACME")
    asked = "What acquisitions did Acme complete in fiscal 2024?"
    assert [q.text for q in quotes(asked, [bought, acquisition], {"acme"})] == [
        acquisition.chunk.text]


def test_a_colon_followed_by_whole_sentence_bullets_is_read_on_as_far_as_a_quote_goes():
    text = ("We have four reportable segments: • UnitedHealthcare provides health care benefits "
            "to employers and individuals in all 50 states. • Optum Health delivers care through "
            "local clinics and at home. • Optum Insight offers data, analytics and technology to "
            "health systems. • Optum Rx provides pharmacy care services to millions of people "
            "across the country every single year through its many networks and channels, "
            "including specialty pharmacy, home delivery and community pharmacies of many kinds.")
    got = quotes("What are UnitedHealth's reportable segments?", [hit(text, ticker="UNH")],
                 {"unitedhealth"})
    assert got and got[0].text.startswith("We have four reportable segments: UnitedHealthcare")
    assert len(got[0].text.split()) <= 90

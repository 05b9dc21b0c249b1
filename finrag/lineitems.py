"""Statement line items an analyst asks for, and how filings print and tag them.

General finance knowledge, as a textbook or an analyst's handbook defines the items: the words
analysts use for an item ("capex", "COGS"), the US-GAAP concepts companies tag it with in inline
XBRL (in order of preference), the row labels statements print it under, the statement it belongs
to, and whether it is a flow over a year (income, cash flow) or a balance at a date. Nothing here
is keyed to a company, a filing or a benchmark question.

`finrag.vocabulary` widens search queries with statement wording; this table picks the figures
an answer states (`finrag.answer`), so it must say exactly which rows are the item.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class LineItem:
    key: str
    name: str  # how an answer names the item ("capital expenditures")
    asked: str  # regex over the normalized question: the words analysts use for it
    concepts: tuple[str, ...]  # us-gaap concepts, most specific first
    labels: str  # regex that a normalized printed row label must match in full
    statement: str  # "income" | "balance" | "cash_flow"
    instant: bool = False  # a balance at a date (balance sheet) rather than a flow over a year
    outflow: bool = False  # printed as a negative on the cash-flow statement; answered positive


def _g(*names: str) -> tuple[str, ...]:
    return tuple(f"us-gaap:{n}" for n in names)


ITEMS: dict[str, LineItem] = {i.key: i for i in [
    LineItem("revenue", "revenue",
             r"(?:total |net |operating )*(?:revenues?|sales)|top line",
             _g("Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax",
                "RevenueFromContractWithCustomerIncludingAssessedTax", "SalesRevenueNet",
                "SalesRevenueGoodsNet"),
             r"(?:total )?(?:net )?(?:operating )?(?:revenues?|sales)(?: net)?"
             r"|total net (?:sales|revenues?)|net sales and (?:operating )?revenues?"
             r"|total (?:net )?revenues? net of interest expense"
             r"|(?:total )?revenues? net|sales to customers",
             "income"),
    LineItem("cogs", "cost of goods sold",
             r"cogs|cost of (?:goods sold|sales|revenues?|products sold|goods and services sold)",
             _g("CostOfGoodsAndServicesSold", "CostOfRevenue", "CostOfGoodsSold",
                "CostOfGoodsAndServiceExcludingDepreciationDepletionAndAmortization"),
             r"(?:total )?cost of (?:goods sold|sales|revenues?|products sold"
             r"|goods and services sold"
             r"|net revenues?)(?: excluding [a-z ,]+)?"
             r"|cost of sales, buying and occupancy|costs? of products and services sold",
             "income"),
    LineItem("gross_profit", "gross profit", r"gross profit",
             _g("GrossProfit"), r"(?:total )?gross (?:profit|margin)", "income"),
    LineItem("operating_income", "operating income",
             r"(?:unadjusted )?(?:operating (?:income|profit|loss|income \(loss\))"
             r"|(?:income|loss) from operations|ebit)",
             _g("OperatingIncomeLoss"),
             r"(?:total )?operating (?:income|profit)(?: loss)?|(?:income|earnings) from operations"
             r"|operating (?:income|profit) \(loss\)|(?:income|loss) from operations",
             "income"),
    LineItem("net_income", "net income",
             r"net (?:income|earnings|profit|loss)(?: \(loss\))?|bottom line",
             _g("NetIncomeLoss", "NetIncomeLossAvailableToCommonStockholdersBasic", "ProfitLoss"),
             r"net (?:income|earnings)(?: loss)?(?: attributable to [a-z0-9 .,&'-]+)?"
             r"|net (?:income|earnings) \(loss\)",
             "income"),
    LineItem("pretax_income", "income before income taxes",
             r"(?:pre ?tax (?:income|profit|earnings)|income before (?:income )?tax(?:es)?)",
             _g("IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
                "IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments"),
             r"(?:income|earnings)(?: from continuing operations)? before (?:provision for )?"
             r"(?:income )?tax(?:es)?",
             "income"),
    LineItem("income_tax", "provision for income taxes",
             r"(?:income tax(?:es)? (?:expense|provision)|provision for income taxes|tax expense)",
             _g("IncomeTaxExpenseBenefit"),
             r"(?:provision for|benefit from) (?:income )?taxes|(?:provision for )?income tax"
             r"(?:es)?(?: expense)?(?: \(benefit\))?|income taxes",
             "income"),
    LineItem("interest_expense", "interest expense", r"interest expense",
             _g("InterestExpense", "InterestExpenseNonoperating", "InterestExpenseDebt"),
             r"interest expense(?: net)?(?: of amounts capitalized)?", "income", outflow=True),
    LineItem("rnd", "research and development", r"r&d|research and development",
             _g("ResearchAndDevelopmentExpense",
                "ResearchAndDevelopmentExpenseExcludingAcquiredInProcessCost"),
             r"research(?:,)? (?:and|&) development(?: expenses?)?", "income"),
    LineItem("sga", "selling, general and administrative",
             r"sg&a|selling general and administrative",
             _g("SellingGeneralAndAdministrativeExpense"),
             r"selling general and administrative(?: expenses?)?", "income"),
    LineItem("opex", "total operating expenses", r"(?:total )?operating expenses|opex",
             _g("OperatingExpenses"), r"(?:total )?operating expenses", "income"),
    LineItem("eps_diluted", "diluted earnings per share",
             r"diluted (?:eps|earnings per share|net income per share)|(?:eps|earnings per share)"
             r"(?: diluted)?",
             _g("EarningsPerShareDiluted"),
             r"diluted(?: earnings per share| net income per share)?"
             r"|diluted (?:earnings|net income)"
             r" per (?:common )?share|(?:net )?(?:earnings|income) per share diluted",
             "income"),
    LineItem("eps_basic", "basic earnings per share",
             r"basic (?:eps|earnings per share)|(?:eps|earnings per share) basic",
             _g("EarningsPerShareBasic"),
             r"basic(?: earnings per share)?|basic (?:earnings|net income) per (?:common )?share",
             "income"),
    LineItem("dna", "depreciation and amortization",
             r"d&a|depreciation(?: and amortization| depletion and amortization)?",
             _g("DepreciationDepletionAndAmortization", "DepreciationAndAmortization",
                "DepreciationAmortizationAndAccretionNet", "Depreciation"),
             r"depreciation(?: depletion)?(?: and)? amortization(?: and other)?"
             r"(?: expense)?(?: of (?:property|equipment|plant|intangibles?|and|&|assets| )+)?"
             r"|depreciation",
             "cash_flow"),
    LineItem("cfo", "net cash provided by operating activities",
             r"(?:operating cash ?flows?|cash ?flows? from operati(?:ons|ng activities)"
             r"|cash (?:provided by|generated (?:by|from)|from) operati(?:ons|ng activities)"
             r"|net cash (?:provided by|from) operating activities)",
             _g("NetCashProvidedByUsedInOperatingActivities",
                "NetCashProvidedByUsedInOperatingActivitiesContinuingOperations"),
             r"(?:total |net )?cash (?:provided by|from|generated by|provided from)"
             r"(?: \(used (?:in|for)\))? operati(?:ons|ng activities)(?: net)?"
             r"|(?:total )?operating activities",
             "cash_flow"),
    LineItem("cfi", "net cash used in investing activities",
             r"(?:net )?cash (?:used in|provided by|from|\(used in\)) investing activities"
             r"|investing cash ?flows?|cash ?flows? from investing(?: activities)?",
             _g("NetCashProvidedByUsedInInvestingActivities",
                "NetCashProvidedByUsedInInvestingActivitiesContinuingOperations"),
             r"(?:total |net )?cash (?:used in|provided by|from|\(used in\)|used for)"
             r"(?: \(used (?:in|for)\)| provided by)? investing activities(?: net)?"
             r"|(?:total )?investing activities",
             "cash_flow"),
    LineItem("cff", "net cash used in financing activities",
             r"(?:net )?cash (?:used in|provided by|from|\(used in\)) financing activities"
             r"|financing cash ?flows?|cash ?flows? from financing(?: activities)?",
             _g("NetCashProvidedByUsedInFinancingActivities",
                "NetCashProvidedByUsedInFinancingActivitiesContinuingOperations"),
             r"(?:total |net )?cash (?:used in|provided by|from|\(used in\)|used for)"
             r"(?: \(used (?:in|for)\)| provided by)? financing activities(?: net)?"
             r"|(?:total )?financing activities",
             "cash_flow"),
    LineItem("capex", "capital expenditures",
             r"capex|capital expenditures?|capital spending|purchases? of property(?: plant)?"
             r"(?: and equipment)?",
             _g("PaymentsToAcquirePropertyPlantAndEquipment", "PaymentsToAcquireProductiveAssets"),
             r"(?:purchases?|additions?|acquisitions?|payments?|investments?)(?: for| of| to| in)?"
             r"(?: (?:land|buildings?|property|plant|equipment|premises|fixed assets|capital assets"
             r"|and|&|pp&e))+(?: net)?(?: \(pp&e\))?"
             r"|capital expenditures?(?: net of [a-z ]+)?|capital spending",
             "cash_flow", outflow=True),
    LineItem("dividends_paid", "cash dividends paid",
             r"(?:cash )?dividends? (?:paid|payments?)|pa(?:y|id) out in (?:cash )?dividends?"
             r"|cash dividends?|pa(?:y|id|ying|ys) (?:out )?(?:any |a )?(?:cash )?dividends?",
             _g("PaymentsOfDividends", "PaymentsOfDividendsCommonStock"),
             r"(?:cash )?dividends? paid(?: to [a-z ]+)?|payments? of (?:cash )?dividends?"
             r"|dividends? paid to shareholders",
             "cash_flow", outflow=True),
    LineItem("buybacks", "repurchases of common stock",
             r"buybacks?|share repurchases?|stock repurchases?|repurchases? of (?:common )?stock",
             _g("PaymentsForRepurchaseOfCommonStock"),
             r"(?:repurchases?|purchases?) of (?:common|treasury|company) stock"
             r"|common stock repurchased",
             "cash_flow", outflow=True),
    LineItem("current_assets", "total current assets", r"(?:total )?current assets",
             _g("AssetsCurrent"), r"total current assets", "balance", instant=True),
    LineItem("current_liabilities", "total current liabilities", r"(?:total )?current liabilities",
             _g("LiabilitiesCurrent"), r"total current liabilities", "balance", instant=True),
    LineItem("total_assets", "total assets", r"total assets",
             _g("Assets"), r"total assets", "balance", instant=True),
    LineItem("total_liabilities", "total liabilities", r"total liabilities",
             _g("Liabilities"), r"total liabilities", "balance", instant=True),
    LineItem("equity", "total shareholders' equity",
             r"(?:total )?(?:shareholders|stockholders|shareowners)'? equity|book value",
             _g("StockholdersEquity"),
             r"total (?:[a-z0-9.,&' -]+ )?(?:shareholders|stockholders|shareowners)'? equity"
             r"(?: \(deficit\))?",
             "balance", instant=True),
    LineItem("inventory", "inventories", r"inventor(?:y|ies)",
             _g("InventoryNet"), r"(?:merchandise |total )?inventor(?:y|ies)(?: net)?",
             "balance", instant=True),
    LineItem("accounts_payable", "accounts payable", r"accounts payable|trade payables?",
             _g("AccountsPayableCurrent", "AccountsPayableTradeCurrent"),
             r"(?:trade )?accounts payable(?: trade)?|trade payables?", "balance", instant=True),
    LineItem("accounts_receivable", "accounts receivable",
             r"accounts receivable|trade receivables?|receivables?",
             _g("AccountsReceivableNetCurrent"),
             r"(?:trade )?(?:accounts )?receivables?(?: net)?(?: less allowances?[a-z0-9 ,$]*)?",
             "balance", instant=True),
    LineItem("ppe_net", "property, plant and equipment, net",
             r"(?:net )?(?:property(?: plant)? and equipment|pp&e|ppe|ppne|fixed assets?)",
             _g("PropertyPlantAndEquipmentNet"),
             r"(?:total )?property(?: plant)?(?: and| &)? equipment(?: net)?"
             r"|net property(?: plant)? and equipment",
             "balance", instant=True),
    LineItem("cash", "cash and cash equivalents", r"cash and (?:cash )?equivalents",
             _g("CashAndCashEquivalentsAtCarryingValue"),
             r"cash and (?:cash )?equivalents", "balance", instant=True),
    LineItem("short_term_investments", "short-term investments",
             r"short term investments|marketable securities",
             _g("ShortTermInvestments", "MarketableSecuritiesCurrent",
                "AvailableForSaleSecuritiesDebtSecuritiesCurrent"),
             r"(?:short term investments|(?:current )?marketable securities)(?: current)?",
             "balance", instant=True),
    LineItem("deferred_revenue", "deferred revenue",
             r"(?:unearned|deferred) revenues?(?: current)?|contract liabilit(?:y|ies)",
             _g("ContractWithCustomerLiabilityCurrent", "DeferredRevenueCurrent",
                "ContractWithCustomerLiability", "DeferredRevenue"),
             r"(?:unearned|deferred) revenues?(?: current)?"
             r"|contract liabilit(?:y|ies)(?: current)?",
             "balance", instant=True),
    LineItem("short_term_debt", "debt due within one year",
             r"short term (?:debt|borrowings)|current (?:portion|maturities) of long term debt",
             _g("DebtCurrent", "LongTermDebtCurrent", "ShortTermBorrowings",
                "LongTermDebtAndCapitalLeaseObligationsCurrent"),
             r"(?:total )?(?:debt|borrowings) (?:maturing|due) within one year"
             r"|short term (?:debt|borrowings)(?: and current (?:portion|maturities) of long term"
             r" debt)?|current (?:portion|maturities) of long term debt(?: and [a-z ]+)?",
             "balance", instant=True),
    LineItem("long_term_debt", "long-term debt",
             r"long term debt",
             _g("LongTermDebtNoncurrent"),
             r"long term debt(?: net)?(?: excluding current (?:portion|maturities))?"
             r"|long term debt less current (?:portion|maturities)",
             "balance", instant=True),
]}

# Words of an item's question pattern, tried longest first, so "cost of sales" is COGS and
# not revenue, and "net cash provided by operating activities" is not net income.
_ORDER = sorted(ITEMS.values(), key=lambda i: -len(i.asked))


@lru_cache(maxsize=65536)
def normalize(text: str) -> str:
    """Lower case, '-' and '/' as spaces, curly quotes straight, footnote marks and punctuation
    other than & ' ( ) % dropped (a decimal point kept), white space collapsed."""
    t = text.lower().replace("\u2019", "'").replace("\u2014", " ").replace("\u2013", " ")
    t = re.sub(r"[-/]", " ", t)
    t = re.sub(r"\(\s*\d\s*\)|\*+|\u2020", " ", t)  # footnote marks "(1)", "*"
    t = re.sub(r"[^a-z0-9&'()%. ]", " ", t)
    t = re.sub(r"\.(?!\d)", " ", t)
    return " ".join(t.split())


def label_matches(item: LineItem, label: str) -> bool:
    """The printed row label is this item (the whole label, normalized)."""
    return _label_matches(item.key, label)


@lru_cache(maxsize=65536)
def _label_matches(key: str, label: str) -> bool:
    item = ITEMS[key]
    text = normalize(label).rstrip(":").strip()
    text = re.sub(r"^(?:less|add|plus)\s+", "", text)
    text = _SECTION.sub("", text)  # "Cash flows from investing activities Capital ..."
    bare = re.sub(r"\s*\([^()]*\)$", "", text)  # "... equipment (PP&E)"
    return any(re.fullmatch(item.labels, t) is not None for t in {text, bare} if t)


# a statement's section heading that a table reader may print before a row's own label
_SECTION = re.compile(
    r"^(?:cash flows? (?:from|provided by|used in|\(used in\)) (?:operating|investing|financing)"
    r" activities|(?:operating|investing|financing) activities|supplemental [a-z ]+ disclosures?"
    r"|adjustments to reconcile [a-z ]+ activities|current (?:assets|liabilities)) ")


def unit_fits(item: LineItem, unit: str) -> bool:
    """A per-share item is in USD per share; every other item is an amount of USD."""
    per_share = "per share" in unit
    return unit.startswith("USD") and per_share == item.key.startswith("eps")


_ASKED = [(item, re.compile(rf"(?<![\w&])(?:{item.asked})(?![\w&])")) for item in ITEMS.values()]


def find_items(question: str) -> list[tuple[int, int, LineItem]]:
    """Line items the normalized question asks for: (start, end, item) in question order. Where
    two wordings overlap the longer wins, so "cost of sales" is COGS, not revenue, and "cash
    from operating activities" is not "operating income"."""
    spans = [(m.start(), m.end(), item) for item, rx in _ASKED for m in rx.finditer(question)]
    spans.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
    found: list[tuple[int, int, LineItem]] = []
    for start, end, item in spans:
        if not any(s < end and start < e for s, e, _ in found):
            found.append((start, end, item))
    return sorted(found, key=lambda f: f[0])

"""Place names a filing uses when it says where a company operates, makes or sells: the world's
countries, its regions as filings group them ("Latin America", "EMEA", "Asia Pacific") and the
U.S. states. General knowledge, not any filing's: a question that asks "which countries",
"what geographies" or "where" is answered by a sentence that names places
(finrag.passage).
"""

from __future__ import annotations

import re

_COUNTRIES = """afghanistan; albania; algeria; andorra; angola; antigua; argentina; armenia;
    australia; austria; azerbaijan; bahamas; bahrain; bangladesh; barbados; belarus; belgium;
    belize; benin; bhutan; bolivia; bosnia; botswana; brazil; brunei; bulgaria; burkina faso;
    burundi; cambodia; cameroon; canada; cape verde; chad; chile; china; china mainland;
    mainland china; colombia; comoros; congo; costa rica; croatia; cuba; cyprus; czech republic;
    czechia; denmark; djibouti; dominica; dominican republic; ecuador; egypt; el salvador;
    eritrea; estonia; eswatini; ethiopia; fiji; finland; france; gabon; gambia; georgia;
    germany; ghana; greece; grenada; guatemala; guinea; guyana; haiti; honduras; hong kong;
    hungary; iceland; india; indonesia; iran; iraq; ireland; israel; italy; ivory coast;
    jamaica; japan; jordan; kazakhstan; kenya; kiribati; korea; south korea; kosovo; kuwait;
    kyrgyzstan; laos; latvia; lebanon; lesotho; liberia; libya; liechtenstein; lithuania;
    luxembourg; macau; madagascar; malawi; malaysia; maldives; mali; malta; mauritania;
    mauritius; mexico; moldova; monaco; mongolia; montenegro; morocco; mozambique; myanmar;
    namibia; nepal; netherlands; new zealand; nicaragua; niger; nigeria; north macedonia;
    norway; oman; pakistan; panama; papua new guinea; paraguay; peru; philippines; poland;
    portugal; puerto rico; qatar; romania; russia; rwanda; saudi arabia; senegal; serbia;
    seychelles; sierra leone; singapore; slovakia; slovenia; somalia; south africa; spain;
    sri lanka; sudan; suriname; sweden; switzerland; syria; taiwan; tajikistan; tanzania;
    thailand; togo; trinidad; tunisia; turkey; türkiye; turkmenistan; uganda; ukraine;
    united arab emirates; uae; united kingdom; u.k.; uk; united states; u.s.; usa; uruguay;
    uzbekistan; venezuela; vietnam; yemen; zambia; zimbabwe; england; scotland; wales;
    northern ireland"""
_REGIONS = """north america; south america; latin america; central america; europe;
    western europe; eastern europe; asia; asia pacific; asia-pacific; apac; emea; middle east;
    africa; oceania; caribbean; greater china; scandinavia; nordics; southeast asia;
    south asia; americas; eurasia; australasia; amesa"""
_STATES = """alabama; alaska; arizona; arkansas; california; colorado; connecticut; delaware;
    florida; hawaii; idaho; illinois; indiana; iowa; kansas; kentucky; louisiana; maine;
    maryland; massachusetts; michigan; minnesota; mississippi; missouri; montana; nebraska;
    nevada; new hampshire; new jersey; new mexico; new york; north carolina; north dakota;
    ohio; oklahoma; oregon; pennsylvania; rhode island; south carolina; south dakota;
    tennessee; texas; utah; vermont; virginia; washington; west virginia; wisconsin; wyoming"""

_NAME_GOES_ON = re.compile(r"[ \t]+[A-Z][a-z]")
REGIONS = frozenset(" ".join(p.split()) for p in _REGIONS.split(";"))
PLACES = frozenset(" ".join(p.split()) for group in (_COUNTRIES, _REGIONS, _STATES)
                   for p in group.split(";"))
_PLACE = re.compile(r"(?<![\w.-])(?:" + "|".join(
    re.escape(p) for p in sorted(PLACES, key=len, reverse=True)) + r")(?![\w-])", re.IGNORECASE)


def places(text: str) -> set[str]:
    """The distinct place names `text` holds ("China mainland, India, Japan" -> 3), written
    as names: capitalised ("turkey products", "fine china" name none) and not the first word
    of another name ("Georgia Power", "Texas Instruments", "Jordan Brand", "Chad Smith")."""
    text = text or ""
    out = set()
    for m in _PLACE.finditer(text):
        word = m.group(0)
        if not word[0].isupper():
            continue
        if not word.endswith(".") and _NAME_GOES_ON.match(text, m.end()):
            continue
        out.add(" ".join(word.lower().split()))
    return out


def regions(text: str) -> set[str]:
    """The regions among them ("North America", "EMEA"): what "geographies" asks for."""
    return places(text) & REGIONS

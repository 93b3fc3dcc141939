// Word pools, legal forms, places and registries from which synthetic golden-copy
// records are drawn. Shapes follow shared/research/gleif.md §4 and the real sample:
// the point is that a search engine meets the same scripts, punctuation, legal-form
// noise and near-duplicates as in the real file, not that any value is true.
//
// Notation, to keep this file readable: a word list is one space-separated string;
// `native=latin` gives a word together with its ASCII transliteration and
// `native=latin=english` adds an English rendering used for alternative-language names.
// Postal patterns: `#` is a digit, `@` an upper-case letter, anything else literal.

export interface Word {
  readonly native: string;
  /** ASCII transliteration; equal to native for plain ASCII words. */
  readonly latin: string;
  /** English rendering, where the word has one (activity words of non-Latin languages). */
  readonly english: string;
}

export type Script = "latin" | "cyrillic" | "greek" | "han" | "kana" | "arabic" | "hangul" | "hebrew" | "thai";

export interface LangPack {
  readonly script: Script;
  /** xml:lang values seen for this language, with weights; '' (no tag) is the most common in the real file. */
  readonly tags: ReadonlyArray<readonly [string, number]>;
  /** Syllables from which brand-like coined words are made (a large, open vocabulary). */
  readonly syllables: readonly string[];
  /** Common words of the language used in names (place-like, descriptive). */
  readonly stems: readonly Word[];
  /** Activity words ("Trading", "Invest", "Bau"), placed before the legal form. */
  readonly activities: readonly Word[];
  readonly givenNames: readonly Word[];
  readonly surnames: readonly Word[];
  readonly streetPre: readonly string[];
  readonly streetPost: readonly string[];
  readonly streetFormat: "numFirst" | "numLast" | "numFirstComma" | "asian";
  /** Whether words are written without spaces between them (CJK, Thai). */
  readonly joined: boolean;
}

export interface LegalForm {
  /** Spelling variants as they appear at the end (or start) of legal names. */
  readonly variants: readonly string[];
  /** ISO 20275 ELF code; 8888 means none, with `other` as free text. */
  readonly elf: string;
  readonly weight: number;
  readonly kind: "company" | "partnership" | "fund" | "trust" | "nonprofit" | "sole";
  /** Placed before the name (ООО "…", 株式会社…, PT …, บริษัท … จำกัด). */
  readonly prefix?: boolean;
  /** Closing part for forms that wrap the name (Thai บริษัท … จำกัด). */
  readonly close?: string;
  /** ASCII transliteration of the form, for transliterated names. */
  readonly latin?: string;
  /** English rendering, for alternative-language names. */
  readonly english?: string;
  /** OtherLegalForm text, required when elf is 8888. */
  readonly other?: string;
  /** Wrap the name in double quotes after a prefix form (ООО "СОЛАР"). */
  readonly quoteName?: boolean;
}

export interface City {
  readonly name: Word;
  /** ISO 3166-2 code of the region. */
  readonly region: string;
  readonly postal: string;
}

export interface Country {
  readonly code: string;
  readonly weight: number;
  readonly lang: LangPack;
  /** Share of names written in English instead of the local language (HK, SG, CY, IN...). */
  readonly english: number;
  readonly forms: readonly LegalForm[];
  readonly fundForms: readonly LegalForm[];
  readonly cities: readonly City[];
  /** Share of addresses that carry the region code (about 62 % overall in the sample). */
  readonly regionShare: number;
  /** Jurisdiction at subdivision level (US-DE, CA-ON) instead of the country. */
  readonly subdivisionJurisdiction: boolean;
  /** Registration authority ids (RA0xxxxx) and the pattern of the entity id they issue. */
  readonly ra: readonly string[];
  readonly raEntity: string;
  /** Prefixes of the LOUs that mostly serve this country. */
  readonly lous: readonly string[];
  /** Share of legal names written in upper case. */
  readonly upper: number;
  /** UTC offset used in local-time dates, e.g. '+02:00'. */
  readonly offset: string;
}

function words(spec: string): Word[] {
  return spec
    .trim()
    .split(/\s+/)
    .map((w) => {
      const [native, latin, english] = w.replace(/_/g, " ").split("=");
      const n = native!;
      return { native: n, latin: latin ?? n, english: english ?? latin ?? n };
    });
}

function list(spec: string): string[] {
  return spec.trim().split(/\s*\|\s*/);
}

function cities(spec: string): City[] {
  // "name=latin/REGION/postal; ..."
  return spec
    .trim()
    .split(/\s*;\s*/)
    .map((c) => {
      const [name, region, postal] = c.split("/");
      const [native, latin] = name!.split("=");
      return { name: { native: native!, latin: latin ?? native!, english: latin ?? native! }, region: region!, postal: postal! };
    });
}

function forms(kind: LegalForm["kind"], spec: ReadonlyArray<readonly [string, string, number, Partial<LegalForm>?]>): LegalForm[] {
  return spec.map(([variants, elf, weight, extra]) => ({ variants: list(variants), elf, weight, kind, ...extra }));
}

// ---------------------------------------------------------------- languages

const EN_SYL = list(
  "ab|ac|ad|al|am|an|ar|as|ax|bel|ber|bri|cal|cam|car|cor|cra|del|den|dor|ed|el|em|en|er|ex|fal|fen|for|gal|gar|gen|glen|gra|ham|har|hel|ien|il|in|is|jen|kel|ken|kin|lan|lar|lex|lin|lor|mar|max|mer|mil|mon|nor|nov|ol|on|or|par|pen|per|pro|quan|ran|rev|ric|ro|ros|sal|san|sel|son|stel|ston|tal|tan|ter|tex|tor|tri|val|van|ver|vis|wel|win|wood|yar|zen|zor",
);

const EN: LangPack = {
  script: "latin",
  tags: [
    ["", 70],
    ["en", 22],
    ["en-US", 4],
    ["en-GB", 2],
    ["en-IE", 1],
  ],
  syllables: EN_SYL,
  stems: words(
    `Atlantic Pacific Northern Southern Eastern Western Central Pinnacle Summit Harbor Harbour Riverside Oakwood Maple Cedar Granite Silver Golden Blue Green Red Liberty Heritage Pioneer Frontier Crescent Beacon Horizon Meridian Keystone Cornerstone Evergreen Highland Lakeside Sterling Crown Royal Imperial Victory Unity Alliance Premier Prime Apex Vertex Vector Quantum Fusion Nexus Orion Phoenix Falcon Eagle Lion Tiger Wolf Bear Fox Hawk Raven Anchor Compass Lighthouse Bridgewater Stonebridge Brookfield Westfield Fairview Greenfield Ashford Kingston Wellington Hamilton Lexington Madison Franklin Jefferson Lincoln Washington Cambridge Oxford Windsor Chelsea Mayfair Belgravia Canary Thames Hudson Potomac Sierra Cascade Rocky Prairie Coastal Delta Bay Ridge Valley Creek Meadow Grove Park Square Point Pointe Crossing Gateway Landing Commons Plaza Tower`,
  ),
  activities: words(
    `Capital Holdings Holding Investments Invest Partners Group Trading Services Solutions Management Properties Real_Estate Energy Technologies Technology Logistics Consulting Ventures Asset_Management Advisors International Global Development Infrastructure Finance Financial Equity Systems Media Pharma Healthcare Industries Manufacturing Construction Engineering Resources Minerals Mining Shipping Marine Aviation Foods Farms Agriculture Textiles Retail Insurance Securities Bank Credit Leasing Funding Acquisition Software Data Networks Communications Entertainment Hospitality Hotels Motors Chemicals Materials Packaging Supply Distribution Imports Exports Enterprises Associates Trust Realty Land Homes Residential Apartments Storage Renewables Solar Wind Power Utilities Water Biotech Labs Diagnostics Medical Dental Education Academy Studios Design Apparel`,
  ),
  givenNames: words(
    "James John Robert Michael William David Richard Joseph Thomas Charles Mary Patricia Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen Emily Oliver Harry George Jack Charlotte Sophie Amelia Olivia Daniel Matthew Andrew Mark Paul Steven Kevin Brian Laura Helen",
  ),
  surnames: words(
    "Smith Johnson Williams Brown Jones Miller Davis Wilson Anderson Taylor Thomas Moore Martin Jackson Thompson White Harris Clark Lewis Robinson Walker Young Allen King Wright Scott Green Baker Adams Nelson Hill Campbell Mitchell Roberts Carter Phillips Evans Turner Parker Collins Edwards Stewart Morris Murphy Cook Rogers Morgan Cooper Peterson Reed Bailey Bell Kelly Howard Ward Cox Richardson Wood Watson Brooks Bennett Gray Hughes Price Sanders Myers Long Ross Foster Gedroyc Severn Jones Delstar Proudreed",
  ),
  streetPre: [],
  streetPost: list("Street|Road|Avenue|Lane|Drive|Boulevard|Way|Place|Court|Parkway|Square|Terrace|Close|Walk|Row"),
  streetFormat: "numFirst",
  joined: false,
};

const DE: LangPack = {
  script: "latin",
  tags: [
    ["", 60],
    ["de", 30],
    ["DE", 5],
    ["de-DE", 5],
  ],
  syllables: list(
    "alt|bach|berg|bern|brand|burg|dorf|eich|eng|feld|fels|fried|grün|hag|hain|hof|holz|horn|kamp|kirch|klein|kron|land|lin|mar|mühl|neu|ost|rein|ried|ros|sach|schön|see|stein|tal|thal|wald|wall|weiß|wen|wies|wolf|zell",
  ),
  stems: words(
    "Nord Süd West Ost Alpen Rhein Main Donau Elbe Isar Ruhr Schwarzwald Bayern Franken Sachsen Hansa Hanse Kontor Werk Mühle Brücke Hafen Turm Stern Sonne Adler Löwe Falke Eiche Linde Tanne Quelle Garten",
  ),
  activities: words(
    "Beteiligungs Verwaltungs Grundstücks Immobilien Vermögensverwaltung Bau Handel Handels Logistik Energie Technik Maschinenbau Elektro Anlagenbau Holding Invest Consulting Service Dienstleistungs Software Medizintechnik Zahntechnik Ingenieur Ingenieurgesellschaft Spedition Transport Autohaus Druckerei Brauerei Bäckerei Versicherungs Finanz Kapitalverwaltungs Projekt Entwicklungs Wohnbau Hausverwaltung",
  ),
  givenNames: words(
    "Jens Klaus Jürgen Wolfgang Peter Michael Thomas Andreas Stefan Frank Sabine Ursula Petra Monika Claudia Anja Katrin Julia Lukas Felix Maximilian Sophie Marie Lena",
  ),
  surnames: words(
    "Müller Schmidt Schneider Fischer Weber Meyer Wagner Becker Schulz Hoffmann Schäfer Koch Bauer Richter Klein Wolf Schröder Neumann Schwarz Zimmermann Braun Krüger Hofmann Hartmann Lange Schmitt Werner Krause Meier Lehmann Walkenhorst Steffien Kindl Dassler",
  ),
  streetPre: [],
  streetPost: list("straße|strasse|str.|weg|allee|platz|ring|damm|gasse|chaussee"),
  streetFormat: "numLast",
  joined: false,
};

const FR: LangPack = {
  script: "latin",
  tags: [
    ["", 70],
    ["fr", 28],
    ["fr-FR", 2],
  ],
  syllables: list(
    "bel|bon|beau|cha|champ|cour|dau|fon|gar|gen|jar|lan|lau|mar|mont|mou|noi|pré|ren|roche|rou|sain|ter|tou|val|vau|vil|lac|bois|bru|cla|dé|fé|gré",
  ),
  stems: words(
    "Atlantique Méditerranée Provence Bretagne Normandie Alsace Lorraine Loire Garonne Seine Rhône Alpes Pyrénées Océan Horizon Avenir Étoile Soleil Lumière Château Moulin Prairie Vallée Montagne Rivière Forêt Jardin Étang Tour Pont Port Baie Côte",
  ),
  activities: words(
    "Immobilier Invest Finances Développement Conseil Services Transports Distribution Participations Gestion Patrimoine Holding Industrie Bâtiment Construction Énergie Technologies Logistique Commerce Négoce Ingénierie Agricole Viticole Pharmacie Santé Assurances Capital Associés Partenaires Expansion Innovation",
  ),
  givenNames: words(
    "Jean Pierre Michel Philippe Alain Nicolas François Laurent Marie Nathalie Isabelle Sylvie Catherine Sophie Camille Léa Chloé Hugo Louis Gabriel",
  ),
  surnames: words(
    "Martin Bernard Dubois Thomas Robert Richard Petit Durand Leroy Moreau Simon Laurent Lefebvre Michel Garcia David Bertrand Roux Vincent Fournier Morel Girard André Lefèvre Mercier Dupont Lambert Bonnet François Martinez Guinot Peene",
  ),
  streetPre: list("rue|avenue|boulevard|place|chemin|allée|impasse|quai|route|rue de la|rue du|avenue du|rue des"),
  streetPost: [],
  streetFormat: "numFirstComma",
  joined: false,
};

const IT: LangPack = {
  script: "latin",
  tags: [
    ["", 80],
    ["it", 20],
  ],
  syllables: list(
    "al|an|ar|bel|ber|ca|cam|car|ci|co|del|di|fa|fe|fio|gal|gio|lan|lu|ma|mar|mon|na|nel|pa|pi|ra|ri|ro|sa|san|ta|ter|ti|to|val|ve|vi|zo",
  ),
  stems: words(
    "Adriatica Tirrenica Alpina Padana Toscana Lombarda Veneta Romana Siciliana Sarda Friulano Agrario Italia Italiana Mediterranea Sole Luna Stella Aurora Fortuna Vittoria Duomo Ponte Torre Castello Fontana Marina Collina Valle Monte Fiume",
  ),
  activities: words(
    "Immobiliare Costruzioni Servizi Trasporti Commerciale Industriale Finanziaria Partecipazioni Consulenze Impianti Elettrica Meccanica Alimentare Agricola Tessile Logistica Energia Tecnologie Investimenti Gestioni Edilizia Distribuzione Farmaceutica Ingegneria Holding Group Italia Cooperativa Consorzio Studio",
  ),
  givenNames: words(
    "Luca Marco Giuseppe Giovanni Antonio Francesco Alessandro Andrea Matteo Lorenzo Maria Anna Giulia Francesca Chiara Sara Laura Valentina Paola Elena",
  ),
  surnames: words(
    "Rossi Russo Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco Bruno Gallo Conti De_Luca Mancini Costa Giordano Rizzo Lombardi Moretti Barbieri Fontana Santoro Mariani Rinaldi Caruso Ferrara Galli Martini Leone Fanfani Graziani Berta",
  ),
  streetPre: list("VIA|VIALE|PIAZZA|CORSO|LARGO|VICOLO|FRAZIONE|LOCALITA'"),
  streetPost: [],
  streetFormat: "numLast",
  joined: false,
};

const ES: LangPack = {
  script: "latin",
  tags: [
    ["", 80],
    ["es", 20],
  ],
  syllables: list("al|an|ar|ba|ca|cas|co|del|do|es|fe|ga|her|ja|la|lo|ma|mar|mo|na|ne|pa|pe|ra|ri|ro|sa|ta|te|to|va|vi|za"),
  stems: words(
    "Ibérica Hispania Atlántico Mediterráneo Andalucía Castilla Galicia Levante Cantábrico Sol Luna Estrella Aurora Victoria Alameda Colina Sierra Valle Monte Río Puerto Torre Plaza Fuente Jardín Olivo Naranjo Atalaya",
  ),
  activities: words(
    "Inversiones Construcciones Servicios Transportes Comercial Industrial Financiera Patrimonial Gestión Inmobiliaria Promociones Consultores Ingeniería Energía Tecnología Logística Distribuciones Alimentación Agrícola Textil Asesores Hostelería Importaciones Exportaciones Desarrollos Proyectos Holding Grupo Capital Televisión",
  ),
  givenNames: words(
    "José Antonio Manuel Francisco Juan David Javier Carlos Jesús Miguel María Carmen Ana Isabel Laura Lucía Marta Elena Pilar Rosa",
  ),
  surnames: words(
    "García Rodríguez González Fernández López Martínez Sánchez Pérez Gómez Martín Jiménez Ruiz Hernández Díaz Moreno Muñoz Álvarez Romero Alonso Gutiérrez Navarro Torres Domínguez Vázquez Ramos Gil Ramírez Serrano Blanco Molina Colladenova Anher",
  ),
  streetPre: list("CALLE|AVENIDA|PASEO|PLAZA|CAMINO|CARRETERA|RONDA|TRAVESIA|ACERA DE|GRAN VIA"),
  streetPost: [],
  streetFormat: "numLast",
  joined: false,
};

const NL: LangPack = {
  script: "latin",
  tags: [
    ["", 75],
    ["nl", 25],
  ],
  syllables: list(
    "aa|beek|berg|bos|broek|dam|dijk|donk|eind|gen|ham|hof|holt|hoven|kamp|kerk|laar|land|loo|meer|molen|oord|rijn|sloot|stein|veen|veld|vliet|voort|wijk|zand",
  ),
  stems: words(
    "Noord Zuid Oost West Holland Zeeland Friesland Brabant Delta Polder Molen Haven Duin Zee Rijn Maas Schelde Tulp Oranje Leeuw Kroon Ster",
  ),
  activities: words(
    "Beheer Holding Invest Vastgoed Bouw Handel Transport Logistiek Techniek Installatietechniek Advies Consultancy Diensten Financiering Participaties Projecten Ontwikkeling Energie Zorg Media Food Agri Tuinbouw Metaalbescherming Coatings Beleggingen Management",
  ),
  givenNames: words("Jan Pieter Hendrik Willem Johannes Cornelis Martin Maria Anna Johanna Elisabeth Sanne Lotte Daan Sem Bram"),
  surnames: words(
    "de_Jong Jansen de_Vries van_den_Berg van_Dijk Bakker Janssen Visser Smit Meijer de_Boer Mulder de_Groot Bos Vos Peters Hendriks van_Leeuwen Dekker Brouwer Blauwhoff Ortec",
  ),
  streetPre: [],
  streetPost: list("straat|laan|weg|plein|gracht|kade|singel|dijk|steeg"),
  streetFormat: "numLast",
  joined: false,
};

const NORDIC_SYL = list(
  "ål|ås|berg|bjør|by|dal|fjell|fjord|gård|haug|holm|lund|mark|nes|rud|sand|skog|stad|strand|sø|tun|vik|vang|ø|å|lid|hede|bro|kær|ris",
);

const DA: LangPack = {
  script: "latin",
  tags: [
    ["", 70],
    ["da", 30],
  ],
  syllables: NORDIC_SYL,
  stems: words(
    "Nordisk Danske Jysk Fyns Sjællands Hede Klit Strand Havn Bølge Kyst Skov Eng Mark Lund Fjord Sol Stjerne Ryttergaard Frederikshavn",
  ),
  activities: words(
    "Holding Invest Ejendomme Byg Entreprise Handel Transport Rådgivning Consult Service Teknik Energi Boligforening Landbrug Maskinstation Tømrer Murer VVS El-service Group Kapital Finans Udlejning",
  ),
  givenNames: words("Charlotte Allan Jens Lars Søren Niels Henrik Mette Anne Hanne Kirsten Rasmus Mads Frederik Sofie Ida"),
  surnames: words(
    "Jensen Nielsen Hansen Pedersen Andersen Christensen Larsen Sørensen Rasmussen Jørgensen Petersen Madsen Kristensen Olsen Thomsen Schønnemann Ballou Ulfoss",
  ),
  streetPre: [],
  streetPost: list("vej|gade|allé|stræde|torv|plads|vænge"),
  streetFormat: "numLast",
  joined: false,
};

const SV: LangPack = {
  script: "latin",
  tags: [
    ["", 70],
    ["sv", 30],
  ],
  syllables: list(
    "berg|by|dal|fors|gård|holm|hult|lid|lund|mark|näs|rud|sjö|skog|sten|strand|sund|torp|vik|å|ö|ås|äng|björk|ek|gran|lind|ro|säter",
  ),
  stems: words(
    "Nordiska Svenska Norrland Skåne Östergötland Västra Östra Norra Södra Vrångens Kraft Fjäll Skärgård Älv Sjö Skog Ek Björk Gran Stjärna Sol",
  ),
  activities: words(
    "Holding Invest Förvaltning Fastigheter Bygg Entreprenad Handel Transport Konsult Service Teknik Energi Arkitektkontor Etikett Maskin Skog Lantbruk Redovisning Kapital Finans Utveckling Media Group",
  ),
  givenNames: words("Mats Erik Lars Anders Johan Karl Per Nils Fredrik Anna Maria Eva Karin Sara Emma Elsa"),
  surnames: words(
    "Andersson Johansson Karlsson Nilsson Eriksson Larsson Olsson Persson Svensson Gustafsson Pettersson Jonsson Lindberg Lindqvist Åkerblad Nordvall Becura",
  ),
  streetPre: [],
  streetPost: list("gatan|vägen|allén|gränd|torget|stigen|backen"),
  streetFormat: "numLast",
  joined: false,
};

const NO: LangPack = {
  script: "latin",
  tags: [
    ["", 70],
    ["no", 25],
    ["nb", 5],
  ],
  syllables: NORDIC_SYL,
  stems: words(
    "Nordic Norsk Vest Nord Sør Øst Fjord Fjell Havet Kyst Skog Dal Bjørke Furu Stjerne Sol Flatås Markeveien Synergi Båtservice Furtech Dreyfus Kring",
  ),
  activities: words(
    "Holding Invest Eiendom Bygg Entreprenør Handel Transport Rådgivning Service Teknikk Energi Utleie Shipping Rederi Fiskeri Havbruk Maskin Regnskap Kapital Finans Utvikling Media Gruppen",
  ),
  givenNames: words("Olav Ole Lars Per Knut Arne Jan Bjørn Kari Ingrid Anne Liv Sigrid Nora Emma Jakob"),
  surnames: words(
    "Hansen Johansen Olsen Larsen Andersen Pedersen Nilsen Kristiansen Jensen Karlsen Johnsen Pettersen Eriksen Berg Haugen Hagen Næsguthe Dimplex",
  ),
  streetPre: [],
  streetPost: list(" gate|veien|vegen|gata|veg|plassen|bakken"),
  streetFormat: "numLast",
  joined: false,
};

const FI: LangPack = {
  script: "latin",
  tags: [
    ["", 75],
    ["fi", 25],
  ],
  syllables: list("aho|haa|häm|jär|kal|kos|kylä|lah|lah|lin|mäki|nie|oja|pel|puu|rin|saa|salo|suo|tal|tam|tuo|vaa|val|vir|yli"),
  stems: words("Suomen Pohjola Lappi Karjala Häme Savo Järvi Metsä Kallio Koski Saari Tähti Aurinko Valaa Logos"),
  activities: words(
    "Holding Invest Kiinteistöt Rakennus Kauppa Kuljetus Konsultointi Palvelut Tekniikka Energia Technologies Yritysvalmennus Group Metalli Puutarha Tilitoimisto Rahoitus Sijoitus",
  ),
  givenNames: words("Kari Matti Juha Timo Mikko Jari Antti Anne Päivi Tiina Sari Aino Eino Veeti"),
  surnames: words("Korhonen Virtanen Mäkinen Nieminen Mäkelä Hämäläinen Laine Heikkinen Koskinen Järvinen Lehtonen Ilkkala"),
  streetPre: [],
  streetPost: list("katu|tie|kuja|puisto|polku|kaari|ranta"),
  streetFormat: "numLast",
  joined: false,
};

const PL: LangPack = {
  script: "latin",
  tags: [
    ["", 70],
    ["pl", 15],
    ["PL", 12],
    ["pl-PL", 3],
  ],
  syllables: list("bud|bor|chem|dom|dar|gor|grud|kar|kol|kor|kraj|las|lech|lub|mar|nowo|pol|rad|sław|stal|tar|trans|wal|wis|zam|zbor"),
  stems: words(
    "Polska Polskie Mazowsze Śląsk Pomorze Wisła Odra Bałtyk Tatry Karpaty Orzeł Sokół Słońce Gwiazda Zamek Most Las Dąb Brzoza",
  ),
  activities: words(
    "Invest Budownictwo Handel Transport Usługi Technika Energia Nieruchomości Doradztwo Logistyka Faktoring Inwestycje Finanse Consulting Development Holding Trade Serwis Instalacje Produkcja Spedycja Media Grupa",
  ),
  givenNames: words(
    "Piotr Krzysztof Andrzej Tomasz Paweł Michał Marcin Rafał Anna Maria Katarzyna Małgorzata Agnieszka Barbara Zofia Jakub",
  ),
  surnames: words(
    "Nowak Kowalski Wiśniewski Wójcik Kowalczyk Kamiński Lewandowski Zieliński Szymański Woźniak Dąbrowski Kozłowski Jankowski Mazur Kwiatkowski Kolikow",
  ),
  streetPre: list("ul.|Ul.|al.|pl.|os.|bulw."),
  streetPost: [],
  streetFormat: "numLast",
  joined: false,
};

const CS: LangPack = {
  script: "latin",
  tags: [
    ["", 60],
    ["cs", 30],
    ["sk", 10],
  ],
  syllables: list("bor|bran|buk|dob|hor|hrad|kam|kra|lip|měst|nov|pod|rad|sel|slav|stav|stra|svět|trn|val|ves|vin|vod|zlat"),
  stems: words(
    "Česká Slovenská Morava Praha Brno Vltava Labe Dunaj Tatra Krkonoše Šumava Hradec Kutná Zlatá Koruna Lev Orel Slunce Hvězda Dunajská",
  ),
  activities: words(
    "Invest Stavby Obchod Doprava Služby Technika Energie Reality Poradenství Logistika Holding Trade Servis Strojírna Elektro Agro Finance Development Group Klub Nadační_fond",
  ),
  givenNames: words("Jan Petr Josef Pavel Martin Tomáš Jaroslav Miroslav Jana Marie Eva Hana Anna Lenka Kateřina Lucie František Naděžda"),
  surnames: words("Novák Svoboda Novotný Dvořák Černý Procházka Kučera Veselý Horák Němec Pokorný Marek Pospíšil Hájek Munk Prášil"),
  streetPre: [],
  streetPost: list(" ulice|ská|ova| cesta| náměstí| nábřeží"),
  streetFormat: "numLast",
  joined: false,
};

const HU: LangPack = {
  script: "latin",
  tags: [
    ["", 70],
    ["hu", 30],
  ],
  syllables: list("bala|bor|csa|dé|fe|gyö|hal|kis|ko|me|mo|nagy|pé|sze|tó|vár|zöld|ér|hegy|fal"),
  stems: words(
    "Magyar Magyarország Pannon Duna Tisza Balaton Alföld Mátra Bükk Kárpát Napfény Csillag Korona Electron Flatpack Chemoglobe",
  ),
  activities: words(
    "Kereskedelmi Szolgáltató Építőipari Ingatlan Befektetési Tanácsadó Fuvarozó Műszaki Energetikai Holding Invest Films Logisztikai Mezőgazdasági Termelő Fejlesztő Pénzügyi Szervíz",
  ),
  givenNames: words("László István József János Zoltán Sándor Péter Gábor Mária Erzsébet Katalin Ilona Éva Anna"),
  surnames: words("Nagy Kovács Tóth Szabó Horváth Varga Kiss Molnár Németh Farkas Balogh Papp Takács Juhász Pappas"),
  streetPre: [],
  streetPost: list(" utca| út| tér| köz| körút| sor"),
  streetFormat: "numLast",
  joined: false,
};

const PT: LangPack = {
  script: "latin",
  tags: [
    ["", 80],
    ["pt", 20],
  ],
  syllables: list("al|bra|ca|cor|do|fa|ga|lu|ma|mi|na|no|pa|pe|ra|ri|sa|ta|te|va|vi"),
  stems: words(
    "Lusitânia Atlântico Douro Tejo Minho Algarve Alentejo Brasil Brasileira Paulista Mineira Carioca Amazônia Sol Estrela Aurora Palmeira Coffea Conquista Pontal",
  ),
  activities: words(
    "Investimentos Construções Serviços Transportes Comercial Industrial Imobiliária Consultoria Participações Engenharia Energia Tecnologia Logística Distribuição Alimentos Agropecuária Têxtil Importação Exportação Dermatologia SGPS Holding",
  ),
  givenNames: words("João José António Manuel Francisco Pedro Paulo Carlos Maria Ana Joana Mariana Beatriz Rita"),
  surnames: words(
    "Silva Santos Ferreira Pereira Oliveira Costa Rodrigues Martins Jesus Sousa Fernandes Gonçalves Gomes Lopes Marques Alves Abreu Ibedomar Massa",
  ),
  streetPre: list("Rua|Avenida|Travessa|Largo|Praça|Estrada|R.|Av."),
  streetPost: [],
  streetFormat: "numLast",
  joined: false,
};

// Belgium writes names in Dutch or French; one pack with both vocabularies.
const BE_LANG: LangPack = {
  ...NL,
  tags: [
    ["", 60],
    ["nl", 20],
    ["fr", 20],
  ],
  stems: [...NL.stems, ...FR.stems],
  activities: [...NL.activities, ...FR.activities],
  surnames: [...NL.surnames, ...FR.surnames, ...words("Schmit-de_Suray Odent Dervaro Minafin")],
  streetPost: [...NL.streetPost, "straat", "laan"],
};

const RO: LangPack = {
  script: "latin",
  tags: [
    ["", 80],
    ["ro", 20],
  ],
  syllables: list("ar|bu|ca|co|do|ga|la|ma|mi|mu|ne|pa|ra|ro|sa|ta|te|vo|voi"),
  stems: words("România Carpați Dunărea Transilvania Moldova Muntenia Banat Dobrogea Soare Stea Vultur Stejar Sadalbari"),
  activities: words(
    "Construcții Servicii Transport Comerț Imobiliare Consultanță Invest Energie Tehnologie Logistică Distribuție Agro Holding Trading Prod Impex Group Finanțe",
  ),
  givenNames: words("Ion Gheorghe Vasile Constantin Mihai Andrei Maria Elena Ioana Ana Cristina"),
  surnames: words("Popescu Ionescu Popa Pop Stan Dumitru Stoica Gheorghe Matei Ciobanu Rusu Munteanu"),
  streetPre: list("Strada|Str.|Bulevardul|Bd.|Calea|Aleea|Piața"),
  streetPost: [],
  streetFormat: "numLast",
  joined: false,
};

const BALTIC: LangPack = {
  script: "latin",
  tags: [
    ["", 70],
    ["et", 10],
    ["lv", 10],
    ["lt", 10],
  ],
  syllables: list("aa|gera|kal|kas|kur|lai|mets|pär|rig|sa|tal|tar|vil|kaun|daug|rami|jur|ozo|lie|pa|mar"),
  stems: words("Baltic Baltija Eesti Latvija Lietuva Daugava Nemunas Integrum Kredex Leiutaja Flone Markapita Tallinna Rīgas Vilniaus"),
  activities: words(
    "Invest Ehitus Kaubandus Transport Teenus Kinnisvara Konsultatsioon Energia Tehnika Holding Investicija Konsultacija Statyba Prekyba Nekilnojamasis Būvniecība Tirdzniecība Finanses Fund Group",
  ),
  givenNames: words("Andres Jaan Toomas Mart Jānis Andris Pēteris Jonas Tomas Mantas Kristina Laura Ieva Anna"),
  surnames: words("Tamm Saar Sepp Mägi Kask Bērziņš Kalniņš Ozoliņš Jansons Kazlauskas Petrauskas Jankauskas Stankevičius Vasiliauskas"),
  streetPre: [],
  streetPost: list(" tn| tänav| tee| iela| gatvė| g.| prospektas"),
  streetFormat: "numLast",
  joined: false,
};

const TR: LangPack = {
  script: "latin",
  tags: [
    ["", 60],
    ["tr", 40],
  ],
  syllables: list("ak|al|ay|bay|can|der|doğ|er|gök|gül|kar|kay|kır|mer|oz|sar|tan|tek|tür|yıl|yur"),
  stems: words("Anadolu Türk Türkiye Marmara Ege Akdeniz Karadeniz Boğaziçi İstanbul Ankara Yıldız Güneş Ay Kartal Aslan Çınar Zirve Ufuk"),
  activities: words(
    "İnşaat Ticaret Sanayi Turizm Gıda Tekstil Enerji Lojistik Taşımacılık Danışmanlık Yatırım Gayrimenkul Holding Otomotiv Makine Kimya Tarım Elektrik Finans Teknoloji",
  ),
  givenNames: words("Mehmet Mustafa Ahmet Ali Hüseyin Hasan İbrahim Fatma Ayşe Emine Hatice Zeynep Elif"),
  surnames: words("Yılmaz Kaya Demir Şahin Çelik Yıldız Yıldırım Öztürk Aydın Özdemir Arslan Doğan Kılıç Aslan Çetin"),
  streetPre: [],
  streetPost: list(" Caddesi| Sokak| Cad.| Sok.| Bulvarı| Mahallesi"),
  streetFormat: "numLast",
  joined: false,
};

const RU: LangPack = {
  script: "cyrillic",
  tags: [
    ["", 50],
    ["ru", 50],
  ],
  syllables: list(
    "ал=al|бор=bor|вол=vol|гор=gor|дар=dar|зем=zem|кам=kam|лес=les|мир=mir|нов=nov|рус=rus|сев=sev|сиб=sib|сол=sol|стр=str|тех=tekh|ур=ur|хим=khim|энер=ener|яр=yar",
  ),
  stems: words(
    "СЕВЕР=SEVER СИБИРЬ=SIBIR УРАЛ=URAL ВОЛГА=VOLGA ДОН=DON БАЙКАЛ=BAYKAL АЛТАЙ=ALTAY СОЛАР=SOLAR ВОСТОК=VOSTOK ЗАПАД=ZAPAD ЮГ=YUG ЗВЕЗДА=ZVEZDA РАССВЕТ=RASSVET ГАРАНТ=GARANT АЛЬЯНС=ALYANS ВЕКТОР=VEKTOR ЛИДЕР=LIDER ПРОГРЕСС=PROGRESS ОРИОН=ORION МЕРИДИАН=MERIDIAN",
  ),
  activities: words(
    "СТРОЙ=STROY=Construction ИНВЕСТ=INVEST=Invest ТРАНС=TRANS=Transport ЭНЕРГО=ENERGO=Energy АГРО=AGRO=Agro МЕТАЛЛ=METALL=Metal ПРОМ=PROM=Industrial ЛОГИСТИК=LOGISTIK=Logistics КАПИТАЛ=KAPITAL=Capital ТОРГ=TORG=Trading ТЕХНОЛОГИИ=TEKHNOLOGII=Technologies НЕФТЕГАЗ=NEFTEGAZ=Oil_and_Gas ФИНАНС=FINANS=Finance ДЕВЕЛОПМЕНТ=DEVELOPMENT=Development СЕРВИС=SERVIS=Service",
  ),
  givenNames: words(
    "Александр=Aleksandr Сергей=Sergey Дмитрий=Dmitriy Андрей=Andrey Алексей=Aleksey Иван=Ivan Елена=Elena Ольга=Olga Наталья=Natalya Татьяна=Tatyana",
  ),
  surnames: words(
    "Иванов=Ivanov Смирнов=Smirnov Кузнецов=Kuznetsov Попов=Popov Васильев=Vasilyev Петров=Petrov Соколов=Sokolov Михайлов=Mikhaylov Новиков=Novikov Фёдоров=Fedorov",
  ),
  streetPre: list("ул.|улица|проспект|пр-кт|переулок|наб.|шоссе"),
  streetPost: [],
  streetFormat: "numLast",
  joined: false,
};

const UK_UA: LangPack = {
  ...RU,
  tags: [
    ["", 50],
    ["uk", 40],
    ["en", 10],
  ],
  stems: words(
    "АГРО-ЮГ=AGRO-YUG ДНІПРО=DNIPRO КАРПАТИ=KARPATY ПОДІЛЛЯ=PODILLIA ПОЛІССЯ=POLISSIA СЛОБОЖАНЩИНА=SLOBOZHANSHCHYNA ЗОРЯ=ZORIA СВІТАНОК=SVITANOK ЛЕВ=LEV КИЇВ=KYIV ЛЬВІВ=LVIV",
  ),
  activities: words(
    "БУД=BUD=Construction ІНВЕСТ=INVEST=Invest ТРАНС=TRANS=Transport ЕНЕРГО=ENERHO=Energy АГРО=AHRO=Agro МЕТАЛ=METAL=Metal ПРОМ=PROM=Industrial ТОРГ=TORH=Trading ФІНАНС=FINANS=Finance СЕРВІС=SERVIS=Service",
  ),
  givenNames: words("Олександр=Oleksandr Андрій=Andrii Сергій=Serhii Тарас=Taras Олена=Olena Оксана=Oksana Наталія=Nataliia"),
  surnames: words(
    "Шевченко=Shevchenko Коваленко=Kovalenko Бондаренко=Bondarenko Ткаченко=Tkachenko Кравченко=Kravchenko Руткович=Rutkovych",
  ),
};

const BG: LangPack = {
  ...RU,
  tags: [
    ["", 50],
    ["bg", 50],
  ],
  stems: words(
    "Българска=Balgarska България=Bulgaria Балкан=Balkan Родопи=Rodopi Пирин=Pirin Рила=Rila Тракия=Trakia Дунав=Dunav Черноморска=Chernomorska Витоша=Vitosha Звезда=Zvezda",
  ),
  activities: words(
    "енергийна=energiyna=Energy търговска=targovska=Trading платформа=platforma=Platform строй=stroy=Construction инвест=invest=Invest транс=trans=Transport агро=agro=Agro консулт=konsult=Consulting холдинг=holding=Holding",
  ),
  givenNames: words("Георги=Georgi Иван=Ivan Димитър=Dimitar Мария=Maria Елена=Elena"),
  surnames: words("Иванов=Ivanov Георгиев=Georgiev Димитров=Dimitrov Петров=Petrov Николов=Nikolov"),
};

const EL: LangPack = {
  script: "greek",
  tags: [
    ["", 50],
    ["el", 50],
  ],
  syllables: list(
    "αθη=athi|αρ=ar|γεω=geo|δελ=del|ελ=el|θαλ=thal|καλ=kal|κρη=kri|λευ=lef|μακ=mak|νη=ni|ολ=ol|παρ=par|ρο=ro|σαν=san|τεχ=tech|φιλ=fil|χρυ=chry",
  ),
  stems: words(
    "ΕΥΡΩΠΑΪΚΗ=EVROPAIKI ΕΛΛΗΝΙΚΗ=ELLINIKI ΑΘΗΝΑ=ATHINA ΟΛΥΜΠΟΣ=OLYMPOS ΑΙΓΑΙΟ=AIGAIO ΚΡΗΤΗ=KRITI ΜΑΚΕΔΟΝΙΑ=MAKEDONIA ΘΕΣΣΑΛΙΑ=THESSALIA ΠΟΣΕΙΔΩΝ=POSEIDON ΗΛΙΟΣ=ILIOS ΑΣΤΕΡΙ=ASTERI ΔΕΛΦΙΝΙ=DELFINI ΣΦΟΛΙΑΤΑ=SFOLIATA",
  ),
  activities: words(
    "ΝΑΥΤΙΛΙΑΚΗ=NAFTILIAKI=Shipping ΕΜΠΟΡΙΚΗ=EMPORIKI=Trading ΤΕΧΝΙΚΗ=TECHNIKI=Technical ΚΑΤΑΣΚΕΥΑΣΤΙΚΗ=KATASKEVASTIKI=Construction ΞΕΝΟΔΟΧΕΙΑΚΗ=XENODOCHEIAKI=Hotels ΤΡΟΦΙΜΑ=TROFIMA=Foods ΕΝΕΡΓΕΙΑΚΗ=ENERGEIAKI=Energy ΕΠΕΝΔΥΤΙΚΗ=EPENDYTIKI=Investment ΑΚΙΝΗΤΩΝ=AKINITON=Real_Estate ΣΥΜΜΕΤΟΧΩΝ=SYMMETOCHON=Holdings ΝΑΥΤΙΛΙΑΚΑ=NAFTILIAKA=Shipping",
  ),
  givenNames: words("Γεώργιος=Georgios Ιωάννης=Ioannis Κωνσταντίνος=Konstantinos Δημήτριος=Dimitrios Μαρία=Maria Ελένη=Eleni"),
  surnames: words(
    "Παπαδόπουλος=Papadopoulos Βλάχος=Vlachos Αγγελόπουλος=Angelopoulos Νικολάου=Nikolaou Γεωργίου=Georgiou Πατάτσος=Patatsos",
  ),
  streetPre: list("Οδός|Λεωφόρος|Πλατεία"),
  streetPost: [],
  streetFormat: "numLast",
  joined: false,
};

const ZH: LangPack = {
  script: "han",
  tags: [
    ["", 40],
    ["zh", 50],
    ["en", 5],
    ["zh-CN", 5],
  ],
  syllables: list(
    "华=Hua|中=Zhong|海=Hai|东=Dong|金=Jin|恒=Heng|新=Xin|瑞=Rui|宏=Hong|天=Tian|永=Yong|国=Guo|联=Lian|盛=Sheng|明=Ming|泰=Tai|源=Yuan|达=Da|丰=Feng|鼎=Ding|通=Tong|安=An|信=Xin|利=Li|昌=Chang|隆=Long|鑫=Xin|博=Bo|嘉=Jia|润=Run",
  ),
  stems: words(
    "华能=Huaneng 中信=Zhongxin 海天=Haitian 东方=Dongfang 长江=Changjiang 恒通=Hengtong 新华=Xinhua 金源=Jinyuan 华泰=Huatai 鼎盛=Dingsheng 瑞丰=Ruifeng 宏达=Hongda 天合=Tianhe 永安=Yongan 国泰=Guotai 中联=Zhonglian 汇丰=Huifeng 盛世=Shengshi 明日=Mingri 柳元=Liuyuan 远洋=Yuanyang 星河=Xinghe",
  ),
  activities: words(
    "电子=Dianzi=Electronics 科技=Keji=Technology 投资=Touzi=Investment 贸易=Maoyi=Trading 实业=Shiye=Industrial 能源=Nengyuan=Energy 控股=Konggu=Holdings 物流=Wuliu=Logistics 建设=Jianshe=Construction 医药=Yiyao=Pharmaceutical 置业=Zhiye=Property 资产管理=Zichan_Guanli=Asset_Management 财资管理=Caizi_Guanli=Treasury_Management 信息技术=Xinxi_Jishu=Information_Technology 新材料=Xin_Cailiao=New_Materials 汽车=Qiche=Automotive 食品=Shipin=Food 顾问=Guwen=Consulting",
  ),
  givenNames: words("伟=Wei 芳=Fang 娜=Na 敏=Min 静=Jing 强=Qiang 磊=Lei 军=Jun"),
  surnames: words("王=Wang 李=Li 张=Zhang 刘=Liu 陈=Chen 杨=Yang 黄=Huang 赵=Zhao 吴=Wu 周=Zhou"),
  streetPre: [],
  streetPost: list("路|街|大道|道"),
  streetFormat: "asian",
  joined: true,
};

const JA: LangPack = {
  script: "kana",
  tags: [
    ["", 40],
    ["ja", 55],
    ["en", 5],
  ],
  syllables: list(
    "ア=A|カ=Ka|サ=Sa|タ=Ta|ナ=Na|ハ=Ha|マ=Ma|ヤ=Ya|ラ=Ra|ワ=Wa|キ=Ki|シ=Shi|ミ=Mi|リ=Ri|コ=Ko|ト=To|ノ=No|モ=Mo|ス=Su|ル=Ru",
  ),
  stems: words(
    "アセット=Asetto サクラ=Sakura ミライ=Mirai トーヨー=Toyo ヤマト=Yamato ニッポン=Nippon フジ=Fuji ヒカリ=Hikari グローバル=Gurobaru テクノ=Tekuno アオバ=Aoba スリー=Suri 東京=Tokyo 日本=Nihon 大和=Daiwa 三和=Sanwa 北海=Hokkai 関西=Kansai 中部=Chubu 九州=Kyushu 未来=Mirai 米国=Beikoku ＪＦＥ=JFE ＧＩＭ=GIM",
  ),
  activities: words(
    "商事=Shoji=Trading 不動産=Fudosan=Real_Estate 電機=Denki=Electric 建設=Kensetsu=Construction 証券=Shoken=Securities 物産=Bussan=Trading 工業=Kogyo=Industries 運輸=Un'yu=Transport 化学=Kagaku=Chemical 製薬=Seiyaku=Pharmaceutical 食品=Shokuhin=Foods 信託銀行=Shintaku_Ginko=Trust_Bank ホールディングス=Horudingusu=Holdings ソリューションズ=Soryushonzu=Solutions エナジー=Enaji=Energy アセットマネジメント=Asetto_Manejimento=Asset_Management",
  ),
  givenNames: words("太郎=Taro 健=Ken 誠=Makoto 花子=Hanako 由美=Yumi"),
  surnames: words("佐藤=Sato 鈴木=Suzuki 高橋=Takahashi 田中=Tanaka 渡辺=Watanabe 伊藤=Ito 山本=Yamamoto 中村=Nakamura"),
  streetPre: [],
  streetPost: list("町|丁目|通り"),
  streetFormat: "asian",
  joined: true,
};

const KO: LangPack = {
  script: "hangul",
  tags: [
    ["", 40],
    ["ko", 50],
    ["kr", 5],
    ["en", 5],
  ],
  syllables: list("한=Han|대=Dae|미=Mi|신=Sin|동=Dong|우=U|세=Se|현=Hyeon|성=Seong|진=Jin|광=Gwang|명=Myeong|태=Tae|영=Yeong|해=Hae"),
  stems: words(
    "파라다이스=Paradaiseu 한빛=Hanbit 대한=Daehan 미래=Mirae 신한=Sinhan 동양=Dongyang 우리=Uri 한국=Hanguk 세종=Sejong 현대=Hyeondae 서울=Seoul 부산=Busan 태평양=Taepyeongyang 한강=Hangang 백두=Baekdu",
  ),
  activities: words(
    "전자=Jeonja=Electronics 건설=Geonseol=Construction 물산=Mulsan=Trading 자산운용=Jasan_Unyong=Asset_Management 투자=Tuja=Investment 에너지=Eneoji=Energy 증권=Jeunggwon=Securities 화학=Hwahak=Chemical 해운=Haeun=Shipping 제약=Jeyak=Pharmaceutical 식품=Sikpum=Foods 홀딩스=Holdingseu=Holdings",
  ),
  givenNames: words("민준=Minjun 서연=Seoyeon 지훈=Jihun"),
  surnames: words("김=Kim 이=Lee 박=Park 최=Choi 정=Jung"),
  streetPre: [],
  streetPost: list("로|길|대로"),
  streetFormat: "asian",
  joined: false,
};

const AR: LangPack = {
  script: "arabic",
  tags: [
    ["", 50],
    ["ar", 40],
    ["en", 10],
  ],
  syllables: list("الن=Aln|سع=Sa|خل=Khal|رح=Rah|فه=Fah|نو=Nu|صف=Saf|حم=Ham|جم=Jam|زه=Zah"),
  stems: words(
    "مصر=Misr الخليج=Al_Khaleej النور=Al_Noor الرياض=Al_Riyadh العربية=Al_Arabiya الوطنية=Al_Wataniya الصفوة=Al_Safwa الأمل=Al_Amal الشرق=Al_Sharq الفجر=Al_Fajr الواحة=Al_Waha المستقبل=Al_Mustaqbal عيون=Oyoun الديوانية=Al_Diwaniyah",
  ),
  activities: words(
    "للتأمين=lil-Tamin=Insurance للمقاولات=lil-Muqawalat=Contracting للتجارة=lil-Tijara=Trading للاستثمار=lil-Istithmar=Investment للنقل=lil-Naql=Transport للعقارات=lil-Aqarat=Real_Estate للصناعة=lil-Sinaa=Industries للخدمات=lil-Khadamat=Services للتقنية=lil-Taqniya=Technology للسيارات=lil-Sayyarat=Cars",
  ),
  givenNames: words("محمد=Mohammed عبدالله=Abdullah أحمد=Ahmed خالد=Khalid فهد=Fahd سعد=Saad أمل=Amal نورة=Noura"),
  surnames: words(
    "الحربي=Al-Harbi القحطاني=Al-Qahtani العتيبي=Al-Otaibi الأحمدي=Al-Ahmadi اليحيى=Al-Yahya الشمري=Al-Shammari الدوسري=Al-Dosari",
  ),
  streetPre: list("شارع|طريق"),
  streetPost: [],
  streetFormat: "numLast",
  joined: false,
};

const HE: LangPack = {
  script: "hebrew",
  tags: [
    ["", 50],
    ["he", 45],
    ["iw", 5],
  ],
  syllables: list("אל=El|בר=Bar|גל=Gal|דן=Dan|הר=Har|כר=Kar|מר=Mar|נת=Nat|של=Shal|תל=Tal"),
  stems: words(
    "וויילאפ=Wheelup אלקטרה=Elektra גלובל=Global ישראל=Israel ירושלים=Yerushalayim הגליל=HaGalil הכרמל=HaCarmel הנגב=HaNegev אופק=Ofek שחר=Shachar",
  ),
  activities: words(
    'השקעות=Hashkaot=Investments נדל"ן=Nadlan=Real_Estate טכנולוגיות=Technologiot=Technologies מערכות=Maarachot=Systems פתרונות=Pitronot=Solutions אחזקות=Achzakot=Holdings תעשיות=Taasiot=Industries ביטוח=Bituach=Insurance סחר=Sachar=Trading',
  ),
  givenNames: words("דוד=David משה=Moshe יוסף=Yosef שרה=Sarah רחל=Rachel"),
  surnames: words("כהן=Cohen לוי=Levi מזרחי=Mizrahi פרץ=Peretz ביטון=Biton"),
  streetPre: list("רחוב|שדרות"),
  streetPost: [],
  streetFormat: "numLast",
  joined: false,
};

const TH: LangPack = {
  script: "thai",
  tags: [
    ["", 50],
    ["th", 45],
    ["en", 5],
  ],
  syllables: list("ไทย=Thai|สยาม=Sayam|รุ่ง=Rung|ศรี=Si|ชัย=Chai|ทอง=Thong|เจริญ=Charoen|มั่น=Man|สุข=Suk|พร=Phon"),
  stems: words(
    "ไทย=Thai สยาม=Siam กรุงเทพ=Krung_Thep รุ่งเรือง=Rungrueang เจริญ=Charoen ศรีสุข=Sisuk ทองคำ=Thongkham มหานคร=Mahanakhon อันดามัน=Andaman ล้านนา=Lanna",
  ),
  activities: words(
    "พัฒนา=Phatthana=Development อุตสาหกรรม=Utsahakam=Industry ขนส่ง=Khonsong=Transport พลังงาน=Phalangngan=Energy ก่อสร้าง=Kosang=Construction เทคโนโลยี=Theknoloyi=Technology อาหาร=Ahan=Food การค้า=Kankha=Trading โฮลดิ้งส์=Holdings=Holdings",
  ),
  givenNames: words("สมชาย=Somchai สมศักดิ์=Somsak มาลี=Mali"),
  surnames: words("ศรีสุข=Srisuk แสงทอง=Saengthong วงศ์ใหญ่=Wongyai"),
  streetPre: list("ถนน"),
  streetPost: [],
  streetFormat: "numLast",
  joined: false,
};

const IN_LANG: LangPack = {
  ...EN,
  tags: [
    ["", 85],
    ["en", 15],
  ],
  syllables: list("aa|an|bha|deep|gan|ganesh|hari|jay|kar|kri|lak|man|nav|par|pra|raj|ram|ro|sai|sha|shri|sri|sur|tej|vij|vin|ya"),
  stems: words(
    "SHRI SRI GANPATI SARASWATI BHARAT LAKSHMI GANESH KRISHNA SAI BALAJI JAI MAA SHIV HARI OM DEEP SURYA VIJAY RAJ NAV JYOTI MAHALAXMI ANUGRAH ROTEX VESTAL JABALPUR NAGPUR RAJKOT HAM ASHTAVINAYAK",
  ),
  activities: words(
    "INFRA EXPORTS IMPEX TEXTILES PHARMA AGRO ENTERPRISES TRADERS CONSTRUCTIONS FINVEST TECHNOLOGIES INDUSTRIES TRADELINK MOTORS CHEMICALS POLYMERS STEELS CEMENT SUGARS SPINNING FABRICS JEWELLERS HOUSING FINANCE CAPITAL SECURITIES FOUNDATION BUILDCON PROJECTS LOGISTICS SOLUTIONS SYSTEMS SOFTWARE",
  ),
  givenNames: words("Rajesh Suresh Ramesh Amit Sunil Anil Vijay Sanjay Priya Anita Sunita Pooja Kavita Deepak Rahul"),
  surnames: words("Sharma Verma Gupta Singh Kumar Patel Shah Mehta Agarwal Jain Reddy Rao Nair Iyer Joshi Desai Lakhani Ammar"),
};

// ---------------------------------------------------------------- legal forms

const US_FORMS = forms("company", [
  ["LLC|LLC|LLC|, LLC|, LLC|L.L.C.|, L.L.C.|LLC.", "HZEH", 40],
  ["INC.|Inc.|INC|Inc|, Inc.|INCORPORATED|CORP.|Corp.|CORPORATION|Corporation|CO., INC.", "XTIQ", 25],
  [", LP|LP|L.P.|, L.P.|LIMITED PARTNERSHIP|, A CALIFORNIA LIMITED PARTNERSHIP", "T91T", 10, { kind: "partnership" }],
  ["LLP|L.L.P.", "Z0EY", 2, { kind: "partnership" }],
  ["TRUST|Trust|Realty Trust|Statutory Trust", "8888", 4, { kind: "trust", other: "Trust" }],
  ["COMPANY|Company|CO|Co.", "8888", 3, { other: "COMPANY" }],
  ["FEDERAL CREDIT UNION|CREDIT UNION|Bank & Trust Company|National Bank|BANK", "380O", 2],
  [
    "FOUNDATION, INC.|Foundation|ASSOCIATION, INCORPORATED|Charter School",
    "8888",
    2,
    { kind: "nonprofit", other: "Nonprofit Corporation" },
  ],
]);

const US_FUNDS = forms("fund", [
  [
    "FUND|Fund|FUND, LP|Fund, L.P.|Fund LLC|Master Fund, L.P.|OFFSHORE FUND LTD.|Portfolio|Index Trust|ETF|Income Fund|Opportunities Fund, L.P.",
    "8888",
    10,
    { other: "FUND" },
  ],
  ["Fund, L.P.|FUND, LP|Fund LP|Partners Fund, L.P.", "T91T", 6],
  ["Fund, LLC|FUND LLC", "HZEH", 3],
  ["Trust|Series Trust|Investment Trust|TRUST", "4FSX", 4],
]);

const GB_FORMS = forms("company", [
  ["LIMITED|Limited|LTD|Ltd|LTD.|Ltd.|(UK) LIMITED|INTERNATIONAL LIMITED|HOLDINGS LIMITED", "H0PO", 60],
  ["PLC|plc|P.L.C.|Public Limited Company", "B6ES", 6],
  ["LLP|Llp|L.L.P.", "Z0EY", 6, { kind: "partnership" }],
  ["LP|L.P.|Limited Partnership", "8888", 3, { kind: "partnership", other: "Limited Partnership" }],
  ["TRUST|Trust|FAMILY TRUST|WILL TRUST|Discretionary Trust|CHARITABLE TRUST", "8888", 6, { kind: "trust", other: "Trust" }],
  ["CIC|Community Interest Company", "G12F", 1, { kind: "nonprofit" }],
]);

const GB_FUNDS = forms("fund", [
  ["FUND|Fund|Investment Trust PLC|Unit Trust|OEIC|Equity Fund|Growth Fund|Income Fund|Sub-Fund", "8888", 8, { other: "FUND" }],
  ["FUND LP|Fund LP|Fund, L.P.", "8888", 3, { other: "Limited Partnership" }],
]);

const LU_FUNDS = forms("fund", [
  ["SICAV|SICAV-SIF|SICAV-RAIF|S.A. SICAV", "UDY2", 8],
  ["SCSp|SCSP|S.C.Sp.|SCSp SICAV-RAIF", "U8KA", 8],
  ["FCP|FCP-RAIF|FCP-SIF|Fonds Commun de Placement", "AIR5", 6],
  ["S.C.S.|SCS|SCA SICAV-SIF", "63P9", 3],
]);

const IE_FUNDS = forms("fund", [
  ["ICAV|plc|Fund plc|UCITS ICAV|Funds plc|Qualifying Investor Fund", "LGWG", 6],
  ["Fund|FUND|Unit Trust|Equity Fund|Bond Fund", "8888", 5, { other: "FUND" }],
]);

const KY_FORMS = forms("company", [
  ["LTD|Ltd.|Limited|LIMITED|Corp.|Holdings Ltd.|Acquisition Corp.", "6XB7", 10],
  ["L.P.|LP|, L.P.", "4XP8", 5, { kind: "partnership" }],
  ["Exempt Company|SPC|Segregated Portfolio Company", "8888", 3, { other: "Exempt Company" }],
]);

const KY_FUNDS = forms("fund", [
  [
    "Master Fund|MASTER FUND, LTD|Offshore Fund Ltd.|Fund, L.P.|Fund Ltd|Feeder Fund Ltd.|Opportunities Fund|Master Fund SPC",
    "8888",
    8,
    { other: "FUND" },
  ],
  ["Fund, L.P.|Partners Fund, L.P.|Fund LP", "6XB7", 6],
]);

const DE_FORMS = forms("company", [
  ["GmbH|GMBH|gmbh|GmbH|Gesellschaft mbH|Gesellschaft mit beschränkter Haftung|mbH", "2HBR", 50],
  ["GmbH & Co. KG|GMBH & CO. KG|GmbH & Co.KG|mbH & Co. KG", "8Z6G", 15, { kind: "partnership" }],
  ["AG|Aktiengesellschaft|AKTIENGESELLSCHAFT", "6QQB", 8],
  ["KG|Kommanditgesellschaft", "SCE1", 5, { kind: "partnership" }],
  ["e.V.|eingetragener Verein", "QZ3L", 4, { kind: "nonprofit" }],
  ["SE", "SGST", 1],
  ["UG (haftungsbeschränkt)|UG", "2YZO", 4],
  ["eG|e.G.", "AZFE", 2],
  ["Stiftung", "V2YH", 1, { kind: "nonprofit", prefix: true }],
]);

const DE_FUNDS = forms("fund", [
  [
    "Fonds|-Fonds|Investmentfonds|Spezial-Sondervermögen|Master|INKA|Invest|Rentenfonds|Aktienfonds",
    "8888",
    8,
    { other: "Sondervermögen nach deutschem Recht (KAGB)" },
  ],
  ["InvAG mit TGV|Investmentaktiengesellschaft", "13AV", 2],
]);

const AT_FORMS = forms("company", [
  ["GmbH|Gesellschaft m.b.H.|Ges.m.b.H.|GesmbH", "AXSB", 50],
  ["AG|Aktiengesellschaft", "EQOV", 8],
  ["GmbH & Co KG|KG", "JTAV", 10, { kind: "partnership" }],
  ["Privatstiftung", "DX6Z", 3, { kind: "nonprofit" }],
]);

const CH_FORMS = forms("company", [
  ["AG|SA|AG / SA|Aktiengesellschaft", "MVII", 30],
  ["GmbH|Sàrl|S.à r.l.", "3EKS", 30],
  ["Stiftung|Fondation|Foundation", "2JZ4", 4, { kind: "nonprofit", prefix: true }],
  ["Genossenschaft|Société coopérative", "FLNB", 2],
]);

const FR_FORMS = forms("company", [
  ["SAS|S.A.S.|SAS|SASU|S.A.S.U.|Société par actions simplifiée", "6CHY", 35],
  ["SARL|S.A.R.L.|EURL|Société à responsabilité limitée", "V9QP", 25],
  ["SA|S.A.|Société anonyme", "K65D", 8],
  ["SCI|sci|Société civile immobilière", "FY0F", 12, { prefix: true }],
  ["EARL|GAEC|SCEA", "QCWO", 4, { prefix: true }],
  ["SNC|Société en nom collectif", "1L24", 3, { kind: "partnership" }],
  ["Association|ASSOCIATION", "BEWI", 3, { kind: "nonprofit", prefix: true }],
]);

const FR_FUNDS = forms("fund", [
  ["FCP|Fonds Commun de Placement|FCPR|FPCI|FCPI", "8888", 6, { other: "FCP" }],
  ["SICAV|SCPI|OPCI|SICAV à compartiments", "7SJP", 4],
]);

const BE_FORMS = forms("company", [
  ["BV|SRL|BV/SRL|BVBA|SPRL", "R85P", 30],
  ["NV|SA|NV/SA", "3W7E", 12],
  ["VZW|ASBL|vzw|asbl", "W3WH", 6, { kind: "nonprofit" }],
  ["CV|SC|CVBA", "N5NT", 6],
  ["Comm.V|SComm|CommV", "CFH5", 3, { kind: "partnership" }],
]);

const NL_FORMS = forms("company", [
  ["B.V.|BV|B.V|Beheer B.V.|Holding B.V.", "54M6", 60],
  ["N.V.|NV", "B5PM", 5],
  ["Stichting|STICHTING", "V44D", 6, { kind: "nonprofit", prefix: true }],
  ["C.V.|CV|Commanditaire Vennootschap", "CODH", 4, { kind: "partnership" }],
  ["V.O.F.|VOF", "8888", 2, { kind: "partnership", other: "Vennootschap onder firma" }],
  ["Coöperatie U.A.|Coöperatie", "NFFH", 2, { prefix: true }],
]);

const IT_FORMS = forms("company", [
  ["S.R.L.|SRL|S.r.l.|s.r.l.|Srl|SOCIETA' A RESPONSABILITA' LIMITATA|S.R.L. UNIPERSONALE", "OV32", 55],
  ["S.P.A.|SPA|S.p.A.|SOCIETA' PER AZIONI", "P418", 10],
  ["S.A.S.|SAS|S.a.s.", "CGSO", 8, { kind: "partnership" }],
  ["S.N.C.|SNC|S.n.c.", "7A7A", 6, { kind: "partnership" }],
  ["SRLS|S.R.L.S.|SOCIETA' A RESPONSABILITA' LIMITATA SEMPLIFICATA", "8GU1", 5],
  ["SOCIETA' COOPERATIVA|SOC. COOP.|SOCIETA' COOPERATIVA SOCIALE|S.C.A.R.L.", "5VAF", 6],
  ["APS|ASSOCIAZIONE|ONLUS|A.S.D.", "1TON", 3, { kind: "nonprofit" }],
  ["Parrocchia di|PARROCCHIA|Confraternita di", "1RI9", 2, { kind: "nonprofit", prefix: true }],
]);

const ES_FORMS = forms("company", [
  ["S.L.|SL|, S.L.|,S.L.|SOCIEDAD LIMITADA|S.L.U.|SLU|SOCIEDAD LIMITADA UNIPERSONAL", "DP3Q", 60],
  ["S.A.|SA|, S.A.|SOCIEDAD ANONIMA|S.A.U.", "A5GG", 12],
  ["ASOCIACION|ASOCIACIÓN|FUNDACION|FUNDACIÓN", "A0J6", 4, { kind: "nonprofit", prefix: true }],
  ["S.COOP.|SOCIEDAD COOPERATIVA|S. COOP. AND.", "XYQJ", 3],
  ["C.B.|COMUNIDAD DE BIENES|S.C.", "8888", 3, { kind: "partnership", other: "COMUNIDAD DE BIENES" }],
]);

const PT_FORMS = forms("company", [
  ["LDA|Lda|Lda.|, LDA|UNIPESSOAL LDA|Unipessoal, Lda", "USOG", 50],
  ["S.A.|SA|, S.A.", "DFE5", 10],
  ["SGPS, S.A.|SGPS SA", "DFE5", 3],
]);

const BR_FORMS = forms("company", [
  ["LTDA|Ltda.|LTDA.|EIRELI|LTDA ME", "QHW1", 40],
  ["S.A.|S/A|S. A.|SA", "X0SD", 12],
]);

const MX_FORMS = forms("company", [
  ["S.A. de C.V.|SA de CV|S.A.P.I. de C.V.|, S.A. de C.V.", "JGV1", 30],
  ["S. de R.L. de C.V.|S de RL de CV", "A9ER", 10],
]);

const DK_FORMS = forms("company", [
  ["ApS|APS|Aps|HOLDING ApS|Invest ApS", "H8VP", 50],
  ["A/S|AS|A/S", "ZRPO", 15],
  ["IVS", "5QS7", 3],
  ["I/S|K/S|P/S", "40R4", 4, { kind: "partnership" }],
  ["v/|V/", "FUKI", 3, { kind: "sole" }],
  ["Fond|Forening|Boligforening|Andelsboligforening|A.M.B.A.|a.m.b.a.", "PIOI", 4, { kind: "nonprofit" }],
]);

const SE_FORMS = forms("company", [
  ["AB|Aktiebolag|Aktiebolaget|AB (publ)", "XJHM", 65],
  ["HB|KB|Handelsbolag|Kommanditbolag", "C61P", 5, { kind: "partnership" }],
  ["Ekonomisk förening|ek. för.", "1TN0", 3],
  ["Stiftelsen|Familjestiftelse", "8888", 2, { kind: "nonprofit", prefix: true, other: "Familjestiftelse" }],
]);

const NO_FORMS = forms("company", [
  ["AS|As|A/S|HOLDING AS|INVEST AS", "YI42", 60],
  ["ASA", "IQGE", 3],
  ["ANS|DA", "326Y", 4, { kind: "partnership" }],
  ["Stiftelse|STIFTELSEN", "EXD7", 2, { kind: "nonprofit", prefix: true }],
  ["ENK", "O0EU", 3, { kind: "sole" }],
]);

const FI_FORMS = forms("company", [
  ["Oy|OY|Oy Ab|Osakeyhtiö", "DKUW", 60],
  ["Oyj|Abp|Oyj Abp", "K6VE", 3],
  ["Ky|Kommandiittiyhtiö", "IYF9", 4, { kind: "partnership" }],
  ["ry|Säätiö|sr", "HEOB", 3, { kind: "nonprofit" }],
]);

const PL_FORMS = forms("company", [
  [
    "Sp. z o.o.|SP. Z O.O.|sp. z o.o.|Spółka z ograniczoną odpowiedzialnością|SPÓŁKA Z OGRANICZONĄ ODPOWIEDZIALNOŚCIĄ|Spółka Z Ograniczoną Odpowiedzialnością|spółka z ograniczoną odpowiedzialnością",
    "O7XB",
    55,
  ],
  ["S.A.|SA|Spółka Akcyjna|SPÓŁKA AKCYJNA", "FJ0E", 10],
  ["Sp. k.|spółka komandytowa|SPÓŁKA KOMANDYTOWA|sp.j.", "8TOF", 6, { kind: "partnership" }],
]);

const CZ_FORMS = forms("company", [
  ["s.r.o.|spol. s r.o.|S.R.O.|s. r. o.|společnost s ručením omezeným", "6CQN", 55],
  ["a.s.|A.S.|akciová společnost", "6D9L", 10],
  ["z.s.|zapsaný spolek|nadační fond", "CATU", 5, { kind: "nonprofit" }],
]);

const SK_FORMS = forms("company", [
  ["s.r.o.|spol. s r.o.|S.R.O.", "VSZS", 55],
  ["a.s.|A.S.", "2EEG", 8],
]);

const HU_FORMS = forms("company", [
  ["Kft.|KFT.|Kft|Korlátolt Felelősségű Társaság|Korlatolt Felelossegu Tarsasag|KORLÁTOLT FELELŐSSÉGŰ TÁRSASÁG", "P9F2", 55],
  ["Zrt.|ZRT.|Zártkörűen Működő Részvénytársaság", "EO9F", 8],
  ["Nyrt.|Nyilvánosan Működő Részvénytársaság", "BKUX", 2],
  ["Bt.|BT.|Betéti Társaság", "TPDI", 6, { kind: "partnership" }],
]);

const RO_FORMS = forms("company", [
  ["SRL|S.R.L.|Srl", "XHN1", 55],
  ["SA|S.A.", "ANDT", 8],
]);

const BALTIC_FORMS_EE = forms("company", [
  ["OÜ|OU|osaühing", "JC0Y", 55],
  ["AS|Aktsiaselts", "9LJA", 8, { prefix: true }],
  ["MTÜ", "752Q", 3, { kind: "nonprofit" }],
]);

const BALTIC_FORMS_LV = forms("company", [
  ["SIA|Sabiedrība ar ierobežotu atbildību", "RIF6", 55, { prefix: true }],
  ["AS|Akciju sabiedrība", "X6NK", 8, { prefix: true }],
]);

const BALTIC_FORMS_LT = forms("company", [
  ["UAB|Uždaroji akcinė bendrovė", "BPLS", 55, { prefix: true, quoteName: true }],
  ["MB|Mažoji bendrija", "SFYA", 15, { prefix: true }],
  ["AB|Akcinė bendrovė", "JJYC", 5, { prefix: true }],
]);

const TR_FORMS = forms("company", [
  ["ANONİM ŞİRKETİ|A.Ş.|A.S.|ANONIM SIRKETI", "TPXE", 40],
  ["LİMİTED ŞİRKETİ|LTD. ŞTİ.|LTD.STI.|LIMITED SIRKETI", "7BQS", 40],
  ["SANAYİ VE TİCARET A.Ş.|SAN. VE TİC. A.Ş.|SANAYİ VE TİCARET LİMİTED ŞİRKETİ", "TPXE", 15],
]);

const RU_FORMS = forms("company", [
  [
    "ООО|Общество с ограниченной ответственностью|ОБЩЕСТВО С ОГРАНИЧЕННОЙ ОТВЕТСТВЕННОСТЬЮ",
    "CF5L",
    60,
    { prefix: true, quoteName: true, latin: "OOO", english: "LIMITED LIABILITY COMPANY" },
  ],
  [
    "АО|Акционерное общество|АКЦИОНЕРНОЕ ОБЩЕСТВО",
    "GRQC",
    15,
    { prefix: true, quoteName: true, latin: "AO", english: "JOINT STOCK COMPANY" },
  ],
  ["ПАО|Публичное акционерное общество", "W0VB", 5, { prefix: true, quoteName: true, latin: "PAO", english: "PUBLIC JOINT STOCK COMPANY" }],
]);

const UA_FORMS = forms("company", [
  [
    "ТОВ|Товариство з обмеженою відповідальністю|ТОВАРИСТВО З ОБМЕЖЕНОЮ ВІДПОВІДАЛЬНІСТЮ",
    "ZXPD",
    50,
    { prefix: true, quoteName: true, latin: "TOV", english: "Limited Liability Company" },
  ],
  [
    "ПрАТ|Приватне акціонерне товариство|АТ",
    "9999",
    15,
    { prefix: true, quoteName: true, latin: "PrAT", english: "Private Joint Stock Company" },
  ],
]);

const BG_FORMS = forms("company", [
  ["ЕООД|ООД|EOOD", "H8HB", 50, { latin: "EOOD", english: "EOOD" }],
  ["АД|ЕАД", "MOQA", 15, { latin: "AD", english: "AD" }],
]);

const GR_FORMS = forms("company", [
  ["ΑΝΩΝΥΜΗ ΕΤΑΙΡΙΑ|Α.Ε.|ΑΕ|ΑΝΩΝΥΜΗ ΕΜΠΟΡΙΚΗ ΚΑΙ ΒΙΟΜΗΧΑΝΙΚΗ ΕΤΑΙΡΙΑ", "7PKP", 35, { latin: "ANONYMI ETAIREIA", english: "S.A." }],
  ["Ε.Π.Ε.|ΕΤΑΙΡΙΑ ΠΕΡΙΟΡΙΣΜΕΝΗΣ ΕΥΘΥΝΗΣ", "U1L2", 10, { latin: "EPE", english: "LIMITED" }],
  ["Ι.Κ.Ε.|ΙΚΕ|ΙΔΙΩΤΙΚΗ ΚΕΦΑΛΑΙΟΥΧΙΚΗ ΕΤΑΙΡΕΙΑ", "R4LD", 15, { latin: "IKE", english: "PRIVATE COMPANY" }],
  ["Ο.Ε.|Ε.Ε.", "XZQ5", 5, { kind: "partnership", latin: "OE", english: "GENERAL PARTNERSHIP" }],
]);

const CY_FORMS = forms("company", [
  ["LTD|LIMITED|Ltd|Limited|HOLDINGS LTD", "RCPI", 60],
  ["ΛΙΜΙΤΕΔ|ΛΤΔ", "RCPI", 6, { latin: "LIMITED", english: "LIMITED" }],
]);

const CN_FORMS = forms("company", [
  ["有限公司", "ECAK", 50, { latin: "Youxian Gongsi", english: "Co., Ltd." }],
  ["股份有限公司", "V816", 15, { latin: "Gufen Youxian Gongsi", english: "Co., Ltd." }],
  ["有限责任公司", "RV48", 15, { latin: "Youxian Zeren Gongsi", english: "LLC" }],
  ["集团有限公司", "ECAK", 6, { latin: "Jituan Youxian Gongsi", english: "Group Co., Ltd." }],
  ["（北京）有限公司|（上海）有限公司|(中国)有限公司", "ECAK", 4, { latin: "Youxian Gongsi", english: "Co., Ltd." }],
]);

const HK_FORMS = forms("company", [
  ["Limited|LIMITED|Company Limited|Holdings Limited|Investments Limited|International Limited", "254M", 60],
  ["有限公司", "254M", 10, { latin: "Yau Han Kung Sze", english: "Limited" }],
]);

const JP_FORMS = forms("company", [
  ["株式会社", "T417", 60, { latin: "Kabushiki Kaisha", english: "Co., Ltd." }],
  ["株式会社", "T417", 25, { prefix: true, latin: "Kabushiki Kaisha", english: "Corporation" }],
  ["合同会社", "JKXG", 10, { latin: "Godo Kaisha", english: "LLC" }],
  ["特定目的会社", "DYQK", 5, { latin: "Tokutei Mokuteki Kaisha", english: "TMK" }],
]);

const JP_FUNDS = forms("fund", [
  [
    "マザーファンド|ファンド|マザーファンド（適格機関投資家専用）|オープン（毎月決算型）|投資法人|（為替ヘッジあり）",
    "9999",
    10,
    { latin: "Fando", english: "Fund" },
  ],
]);

const KR_FORMS = forms("company", [
  ["주식회사", "J3WX", 60, { prefix: true, latin: "Jusikhoesa", english: "Co., Ltd." }],
  ["주식회사", "J3WX", 25, { latin: "Jusikhoesa", english: "Co., Ltd." }],
  ["유한회사", "DXOH", 10, { latin: "Yuhanhoesa", english: "Ltd." }],
]);

const SA_FORMS = forms("company", [
  ["Est|EST|Trading Est|Contracting Est|مؤسسة", "8888", 30, { prefix: false, other: "مؤسسة فردية", kind: "sole" }],
  ["شركة|Company|Contracting Company|Trading Company|CO", "TTE8", 25, { latin: "Sharikat", english: "Company" }],
  ["شركة ذات مسؤولية محدودة|LLC|Limited Liability Company", "B3JS", 20, { latin: "LLC", english: "LLC" }],
]);

const AE_FORMS = forms("company", [
  ["L.L.C|LLC|L.L.C.|ذ.م.م", "H6YO", 45, { latin: "LLC", english: "LLC" }],
  ["FZE|FZ-LLC|FZCO|Ltd", "AB0L", 30],
  ["PJSC|P.J.S.C.|شركة مساهمة عامة", "8888", 5, { other: "Public Joint Stock Company", latin: "PJSC", english: "PJSC" }],
]);

const IL_FORMS = forms("company", [
  ['בע"מ|בע״מ', "8888", 60, { other: "Limited Company", latin: "Ltd", english: "Ltd" }],
  ["Ltd|LTD|Ltd.", "8888", 30, { other: "LIMITED" }],
]);

const TH_FORMS = forms("company", [
  ["บริษัท", "Y3SV", 60, { prefix: true, close: "จำกัด", latin: "Borisat", english: "Co., Ltd." }],
  ["บริษัท", "KX2W", 10, { prefix: true, close: "จำกัด (มหาชน)", latin: "Borisat", english: "Public Company Limited" }],
  ["ห้างหุ้นส่วนจำกัด", "WBOK", 10, { prefix: true, latin: "Hang Hunsuan Chamkat", english: "Limited Partnership", kind: "partnership" }],
]);

const IN_FORMS = forms("company", [
  ["PRIVATE LIMITED|PVT LTD|PVT. LTD.|Private Limited|PRIVATE LTD", "YSP9", 45],
  ["LIMITED|LTD", "DDKQ", 10],
  ["LLP", "U5S6", 6, { kind: "partnership" }],
  ["", "A0PS", 12, { kind: "sole" }],
  ["& CO|CO|AND COMPANY", "4QIE", 8, { kind: "partnership" }],
  ["FOUNDATION|TRUST|SANSTHA", "W9FI", 3, { kind: "nonprofit" }],
]);

const AU_FORMS = forms("company", [
  ["PTY LTD|Pty Ltd|PTY. LTD.|PTY LIMITED|Pty. Limited", "TXVC", 60],
  ["LIMITED|Limited|Ltd", "R4KK", 8],
  ["The Trustee for|THE TRUSTEE FOR", "7TPC", 10, { kind: "trust", prefix: true }],
]);

const CA_FORMS = forms("company", [
  ["INC.|Inc.|INC|inc.|Canada inc.|CORP.|Corp.|LTD.|Ltd.|LIMITED", "O90R", 50],
  ["ULC|Unlimited Liability Company", "YG5M", 5],
  ["Limited Partnership|LP|L.P.", "1JGX", 8, { kind: "partnership" }],
]);

const SG_FORMS = forms("company", [
  ["PTE. LTD.|Pte. Ltd.|PTE LTD|Private Limited|PRIVATE LIMITED", "LWXI", 60],
  ["LIMITED|Ltd", "BYQJ", 6],
  ["LLP", "AZ6Y", 3, { kind: "partnership" }],
  ["VCC|Variable Capital Company", "8888", 2, { kind: "fund", other: "Variable Capital Company" }],
]);

const VG_FORMS = forms("company", [
  ["Ltd|Limited|LTD|Holdings Ltd|Investments Ltd|International Limited|Business Limited|Inc.", "6EH6", 50],
]);

const BM_FORMS = forms("company", [
  ["Ltd.|Limited|Insurance Limited|Re Ltd.|Holdings Ltd.", "7AS7", 30],
  ["L.P.|LP", "8888", 5, { kind: "partnership", other: "Exempted Limited Partnership" }],
]);

const NG_FORMS = forms("company", [
  ["LIMITED|LTD|NIGERIA LIMITED|SECURITIES LIMITED", "8888", 40, { other: "LIMITED" }],
  ["PLC|plc", "8888", 8, { other: "Public Limited Company" }],
]);

const ZA_FORMS = forms("company", [
  ["(PTY) LTD|(Pty) Ltd|PROPRIETARY LIMITED", "GQVQ", 40],
  ["LIMITED|Ltd|(RF) LTD", "XE4Z", 8],
  ["TRUST|Trust", "8888", 5, { kind: "trust", other: "Trust" }],
]);

// ---------------------------------------------------------------- LOUs

/**
 * The ~40 LOUs: LEI prefix and the LOU's own LEI (the ManagingLOU value).
 * The LEIs given are real ManagingLOU values from the sample; the others carry synthetic LEIs
 * derived from their prefix at start-up (see records.ts), which is enough for a
 * facet on managingLou.
 */
export const LOUS: ReadonlyArray<{ readonly prefix: string; readonly lei: string | null; readonly weight: number }> = [
  { prefix: "5493", lei: "5493001KJTIIGC8Y1R12", weight: 18 },
  { prefix: "9845", lei: "98450045AN5EB5FDC780", weight: 12 },
  { prefix: "2549", lei: "529900F6BNUR3RJ2WH29", weight: 10 },
  { prefix: "8945", lei: "529900T8BM49AURSDO55", weight: 9 },
  { prefix: "2138", lei: "213800WAVVOPS85N2205", weight: 5 },
  { prefix: "8156", lei: "894500IIP432AHQ64V02", weight: 6 },
  { prefix: "3358", lei: "335800FVH4MOKZS9VH40", weight: 5 },
  { prefix: "9598", lei: "549300O897ZC5H7CY412", weight: 4 },
  { prefix: "5299", lei: "5299000J2N45DDNE4Y28", weight: 4 },
  { prefix: "0979", lei: "097900BEFH0000000217", weight: 2 },
  { prefix: "7245", lei: "724500A93Z8V1MJK5349", weight: 2 },
  { prefix: "9695", lei: "254900LXHEVKYGERER05", weight: 3 },
  { prefix: "3912", lei: "39120001KULK7200U106", weight: 2 },
  { prefix: "0292", lei: "029200067A7K6CH0H586", weight: 1 },
  { prefix: "2594", lei: "259400L3KBYEVNHEJF55", weight: 1 },
  { prefix: "3157", lei: "655600IJ8LS3CCDA4421", weight: 1 },
  { prefix: "7437", lei: "743700OO8O2N3TQKJC81", weight: 1 },
  { prefix: "3003", lei: "52990034RLKT0WSOAM90", weight: 2 },
  { prefix: "6994", lei: null, weight: 0.5 },
  { prefix: "6354", lei: "635400DZBUIMTBCXGA12", weight: 0.5 },
  { prefix: "7890", lei: "EVK05KS7XY1DEII3R011", weight: 0.5 },
  { prefix: "8755", lei: null, weight: 0.5 },
  { prefix: "5586", lei: "558600FNC30A8J9EGQ54", weight: 0.5 },
  { prefix: "3538", lei: "353800279ADEFGKNTV65", weight: 1 },
  { prefix: "7872", lei: null, weight: 0.3 },
  { prefix: "2221", lei: null, weight: 0.3 },
  { prefix: "6367", lei: null, weight: 0.3 },
  { prefix: "4851", lei: null, weight: 0.2 },
  { prefix: "5067", lei: null, weight: 0.2 },
  { prefix: "4469", lei: null, weight: 0.2 },
  { prefix: "9676", lei: null, weight: 0.2 },
  { prefix: "2763", lei: null, weight: 0.1 },
  { prefix: "9884", lei: null, weight: 0.1 },
  { prefix: "9504", lei: null, weight: 0.1 },
  { prefix: "2534", lei: null, weight: 0.1 },
  { prefix: "1595", lei: null, weight: 0.1 },
  { prefix: "6488", lei: null, weight: 0.1 },
  { prefix: "5967", lei: null, weight: 0.1 },
  { prefix: "8368", lei: null, weight: 0.1 },
  { prefix: "9379", lei: null, weight: 0.1 },
];

// ---------------------------------------------------------------- countries

function c(
  code: string,
  weight: number,
  lang: LangPack,
  formsList: readonly LegalForm[],
  cityList: string,
  opts: Partial<Omit<Country, "code" | "weight" | "lang" | "forms" | "cities">> = {},
): Country {
  return {
    code,
    weight,
    lang,
    english: opts.english ?? 0,
    forms: formsList,
    fundForms: opts.fundForms ?? [],
    cities: cities(cityList),
    regionShare: opts.regionShare ?? 0.5,
    subdivisionJurisdiction: opts.subdivisionJurisdiction ?? false,
    ra: opts.ra ?? ["RA999999"],
    raEntity: opts.raEntity ?? "########",
    lous: opts.lous ?? ["9845", "5493", "8945"],
    upper: opts.upper ?? 0.5,
    offset: opts.offset ?? "+01:00",
  };
}

export const COUNTRIES: readonly Country[] = [
  c(
    "US",
    115,
    EN,
    US_FORMS,
    "WILMINGTON/US-DE/19801; Dover/US-DE/19904; New York/US-NY/100##; NEW YORK/US-NY/100##; Los Angeles/US-CA/900##; San Francisco/US-CA/941##; Chicago/US-IL/606##; Houston/US-TX/770##; Dallas/US-TX/752##; Boston/US-MA/021##; Miami/US-FL/331##; Atlanta/US-GA/303##; Seattle/US-WA/981##; Denver/US-CO/802##; Phoenix/US-AZ/850##; Minneapolis/US-MN/554##; Charlotte/US-NC/282##; Nashville/US-TN/372##; Columbus/US-OH/432##; Detroit/US-MI/482##; Philadelphia/US-PA/191##; Baltimore/US-MD/212##; Richmond/US-VA/232##; Las Vegas/US-NV/891##; Portland/US-OR/972##; Salt Lake City/US-UT/841##; Kansas City/US-MO/641##; Omaha/US-NE/681##; Greenwich/US-CT/068##; Princeton/US-NJ/085##; Lynchburg/US-VA/24502; Indianapolis/US-IN/462##; Louisville/US-KY/402##; New Orleans/US-LA/701##; Anchorage/US-AK/995##; Burlington/US-VT/054##; Madison/US-WI/537##; Des Moines/US-IA/503##; Wichita/US-KS/672##; Little Rock/US-AR/722##; Albuquerque/US-NM/871##; Bismarck/US-ND/585##",
    {
      fundForms: US_FUNDS,
      regionShare: 0.98,
      subdivisionJurisdiction: true,
      ra: ["RA000665", "RA000602", "RA000598", "RA000744", "RA000631"],
      raEntity: "#######",
      lous: ["5493", "2549", "9845", "8945"],
      upper: 0.55,
      offset: "-05:00",
    },
  ),
  c(
    "GB",
    60,
    EN,
    GB_FORMS,
    "LONDON/GB-LND/EC#@ #@@; London/GB-LND/W1@ #@@; LONDON/GB-LND/N## #@@; Manchester/GB-MAN/M# #@@; Greater Manchester/GB-MAN/OL# #@@; Birmingham/GB-BIR/B## #@@; West Midlands/GB-DUD/DY# #@@; Leeds/GB-LDS/LS# #@@; Sheffield/GB-SHF/S## #@@; Bristol/GB-BST/BS# #@@; Edinburgh/GB-EDH/EH# #@@; Glasgow/GB-GLG/G# #@@; Cardiff/GB-CRF/CF## #@@; Belfast/GB-BFS/BT# #@@; READING/GB-RDG/RG# #@@; SOUTHAMPTON/GB-STH/SO## #@@; WORCESTER/GB-WOR/WR# #@@; Cambridge/GB-CAM/CB# #@@; Oxford/GB-OXF/OX# #@@; Kent/GB-KEN/ME## #@@",
    {
      fundForms: GB_FUNDS,
      regionShare: 0.45,
      ra: ["RA000585", "RA000586"],
      raEntity: "0#######",
      lous: ["2138", "8945", "9845", "5493"],
      upper: 0.6,
      offset: "+00:00",
    },
  ),
  c(
    "DE",
    60,
    DE,
    DE_FORMS,
    "Berlin/DE-BE/10###; Hamburg/DE-HH/20###; München/DE-BY/80###; Gilching/DE-BY/82205; Köln/DE-NW/50###; Frankfurt am Main/DE-HE/60###; Stuttgart/DE-BW/70###; Düsseldorf/DE-NW/40###; Dortmund/DE-NW/44###; Essen/DE-NW/45###; Leipzig/DE-SN/04###; Bremen/DE-HB/28###; Dresden/DE-SN/01###; Hannover/DE-NI/30###; Nürnberg/DE-BY/90###; Bad Schwartau/DE-SH/23611; Biberach an der Riß/DE-BW/88400; Mannheim/DE-BW/68###; Kiel/DE-SH/24###; Mainz/DE-RP/55###; Saarbrücken/DE-SL/66###; Erfurt/DE-TH/99###; Magdeburg/DE-ST/39###; Potsdam/DE-BB/14###; Schwerin/DE-MV/19###; Regensburg/DE-BY/93###; Würzburg/DE-BY/97###; Freiburg im Breisgau/DE-BW/79###",
    {
      fundForms: DE_FUNDS,
      regionShare: 0.6,
      ra: ["RA000197", "RA000242", "RA000256", "RA000217"],
      raEntity: "HRB ######",
      lous: ["3912", "5299", "9845", "8945"],
      upper: 0.2,
      offset: "+02:00",
    },
  ),
  c(
    "FR",
    45,
    FR,
    FR_FORMS,
    "Paris/FR-75/750##; PARIS 9/FR-75/75009; Lyon/FR-69/690##; MARSEILLE 3/FR-13/13003; Marseille/FR-13/130##; Toulouse/FR-31/310##; Nice/FR-06/060##; Nantes/FR-44/440##; Strasbourg/FR-67/670##; Montpellier/FR-34/340##; Bordeaux/FR-33/330##; Lille/FR-59/590##; MONS-EN-BAROEUL/FR-59/59370; Rennes/FR-35/350##; Reims/FR-51/510##; Neuilly-sur-Seine/FR-92/92200; Boulogne-Billancourt/FR-92/92100; Levallois-Perret/FR-92/92300; Saint-Étienne/FR-42/420##; Grenoble/FR-38/380##",
    {
      fundForms: FR_FUNDS,
      regionShare: 0.2,
      ra: ["RA000189", "RA000192"],
      raEntity: "#########",
      lous: ["9695", "5299", "8945", "9845"],
      upper: 0.6,
      offset: "+02:00",
    },
  ),
  c(
    "IT",
    60,
    IT,
    IT_FORMS,
    "ROMA/IT-RM/00###; MILANO/IT-MI/201##; NAPOLI/IT-NA/801##; TORINO/IT-TO/101##; PALERMO/IT-PA/901##; GENOVA/IT-GE/161##; BOLOGNA/IT-BO/401##; FIRENZE/IT-FI/501##; BARI/IT-BA/701##; BARLETTA/IT-BT/76121; CATANIA/IT-CT/951##; VENEZIA/IT-VE/301##; VERONA/IT-VR/371##; PADOVA/IT-PD/351##; TRIESTE/IT-TS/341##; BRESCIA/IT-BS/251##; PARMA/IT-PR/431##; CALAMANDRANA/IT-AT/14042; UDINE/IT-UD/331##; BERGAMO/IT-BG/241##; Guardiagrele/IT-CH/66016; CAGLIARI/IT-CA/091##",
    {
      regionShare: 0.95,
      ra: ["RA000407", "RA000408"],
      raEntity: "###########",
      lous: ["8156", "5299", "8945", "9845"],
      upper: 0.8,
      offset: "+02:00",
    },
  ),
  c(
    "ES",
    40,
    ES,
    ES_FORMS,
    "MADRID/ES-M/280##; BARCELONA/ES-B/080##; VALENCIA/ES-V/460##; SEVILLA/ES-SE/410##; ZARAGOZA/ES-Z/500##; MALAGA/ES-MA/290##; Murcia/ES-MU/300##; Palma/ES-PM/070##; Bilbao/ES-BI/480##; Alicante/ES-A/030##; Córdoba/ES-CO/140##; Cabra/ES-CO/14940; VALLADOLID/ES-VA/470##; Vigo/ES-PO/362##; Gijón/ES-O/332##; A Coruña/ES-C/150##; Granada/ES-GR/180##; Pamplona/ES-NA/310##",
    {
      regionShare: 0.3,
      ra: ["RA000533", "RA000534"],
      raEntity: "@########",
      lous: ["9598", "8945", "9845"],
      upper: 0.85,
      offset: "+02:00",
    },
  ),
  c(
    "NL",
    30,
    NL,
    NL_FORMS,
    "Amsterdam/NL-NH/10##@@; Rotterdam/NL-ZH/30##@@; Den Haag/NL-ZH/25##@@; Utrecht/NL-UT/35##@@; Eindhoven/NL-NB/56##@@; Groningen/NL-GR/97##@@; Tilburg/NL-NB/50##@@; Almere/NL-FL/13##@@; Breda/NL-NB/48##@@; Nijmegen/NL-GE/65##@@; Hilversum/NL-NH/1213VM; Veldhoven/NL-NB/5501CV; Zwolle/NL-OV/80##@@; Maastricht/NL-LI/62##@@",
    { regionShare: 0.2, ra: ["RA000463"], raEntity: "########", lous: ["7245", "8945", "9845", "5299"], upper: 0.2, offset: "+02:00" },
  ),
  c(
    "BE",
    18,
    BE_LANG,
    BE_FORMS,
    "Bruxelles/BE-BRU/10##; Brussel/BE-BRU/10##; Antwerpen/BE-VAN/20##; Beerse/BE-VAN/2340; Gent/BE-VOV/90##; Waregem/BE-VWV/8793; Liège/BE-WLG/40##; Gedinne/BE-WNA/5575; Charleroi/BE-WHT/60##; Leuven/BE-VBR/30##; Namur/BE-WNA/50##; Brugge/BE-VWV/80##",
    { regionShare: 0.5, ra: ["RA000025"], raEntity: "0###.###.###", lous: ["5493", "9845", "8945", "6994"], upper: 0.6, offset: "+02:00" },
  ),
  c(
    "LU",
    25,
    FR,
    forms("company", [
      ["S.A.|SA|S.à r.l.|S.à.r.l.|SARL|S.A R.L.", "5GGB", 40],
      ["SE|S.C.S.|SCS", "DVXS", 5, { kind: "partnership" }],
    ]),
    "Luxembourg/LU-LU/L-1###; Luxembourg/LU-LU/1###; Strassen/LU-LU/L-8###; Senningerberg/LU-LU/L-2633; Munsbach/LU-LU/L-5365; Bertrange/LU-LU/L-8###; Esch-sur-Alzette/LU-ES/L-4###",
    {
      fundForms: LU_FUNDS,
      regionShare: 0.6,
      ra: ["RA000432"],
      raEntity: "B######",
      lous: ["2221", "5493", "5299", "8945"],
      upper: 0.6,
      offset: "+02:00",
    },
  ),
  c(
    "IE",
    15,
    EN,
    forms("company", [
      ["LIMITED|Limited|LTD|DESIGNATED ACTIVITY COMPANY|DAC|UNLIMITED COMPANY", "MNQ7", 40],
      ["PLC|plc|Public Limited Company", "LGWG", 5],
    ]),
    "DUBLIN/IE-D/D02 @#@#; Dublin 2/IE-D/D02 @@##; Dublin/IE-D/D0# @###; Cork/IE-CO/T12 @#@#; Galway/IE-G/H91 @#@#; Limerick/IE-LK/V94 @#@#",
    {
      fundForms: IE_FUNDS,
      regionShare: 0.5,
      ra: ["RA000402"],
      raEntity: "######",
      lous: ["6354", "5493", "8945", "9845"],
      upper: 0.6,
      offset: "+01:00",
    },
  ),
  c(
    "DK",
    25,
    DA,
    DK_FORMS,
    "København/DK-84/1###; Copenhagen/DK-84/1###; Charlottenlund/DK-84/2920; Aarhus/DK-82/8000; VIBORG/DK-82/8800; Odense/DK-83/5000; Aalborg/DK-81/9000; Strandby/DK-81/9970; Esbjerg/DK-83/6700; Randers/DK-82/8900; Kolding/DK-83/6000; Herning/DK-82/7400; Frederikshavn/DK-81/9900",
    { regionShare: 0.3, ra: ["RA000170"], raEntity: "########", lous: ["9845", "5299", "8945", "2138"], upper: 0.4, offset: "+02:00" },
  ),
  c(
    "SE",
    25,
    SV,
    SE_FORMS,
    "Stockholm/SE-AB/1## ##; Göteborg/SE-O/4## ##; Malmö/SE-M/211 ##; Uppsala/SE-C/75# ##; Västerås/SE-U/72# ##; Örebro/SE-T/70# ##; Linköping/SE-E/58# ##; Helsingborg/SE-M/25# ##; Jönköping/SE-F/55# ##; Umeå/SE-AC/90# ##; Luleå/SE-BD/97# ##; Bedding/SE-O/451 ##",
    { regionShare: 0.5, ra: ["RA000544"], raEntity: "55####-####", lous: ["9845", "5493", "8945", "2138"], upper: 0.3, offset: "+02:00" },
  ),
  c(
    "NO",
    22,
    NO,
    NO_FORMS,
    "Oslo/NO-03/0###; BERGEN/NO-46/50##; Trondheim/NO-50/70##; Stavanger/NO-11/40##; Lillestrøm/NO-32/2000; Drammen/NO-33/30##; Kristiansand/NO-42/46##; Tromsø/NO-55/90##; Ålesund/NO-15/60##; Bodø/NO-18/80##",
    { regionShare: 0.1, ra: ["RA000472"], raEntity: "9## ### ###", lous: ["9845", "2138", "5493", "8945"], upper: 0.75, offset: "+02:00" },
  ),
  c(
    "FI",
    10,
    FI,
    FI_FORMS,
    "Helsinki/FI-18/00###; Espoo/FI-18/02###; TAMPERE/FI-11/33###; Turku/FI-19/20###; Oulu/FI-14/90###; Lahela/FI-18/04330; Jyväskylä/FI-08/40###; Kuopio/FI-15/70###",
    { regionShare: 0.2, ra: ["RA000188"], raEntity: "#######-#", lous: ["7437", "9845", "5493"], upper: 0.3, offset: "+03:00" },
  ),
  c(
    "PL",
    15,
    PL,
    PL_FORMS,
    "Warszawa/PL-14/0#-###; Kraków/PL-12/3#-###; Łódź/PL-10/9#-###; Wrocław/PL-02/5#-###; Poznań/PL-30/6#-###; Gdańsk/PL-22/80-###; Szczecin/PL-32/7#-###; Kołobrzeg/PL-32/78-100; Grudziadz/PL-04/86-300; Lublin/PL-06/20-###; Katowice/PL-24/40-###",
    { regionShare: 0.5, ra: ["RA000484"], raEntity: "0000######", lous: ["2594", "9845", "5299"], upper: 0.5, offset: "+02:00" },
  ),
  c(
    "CZ",
    10,
    CS,
    CZ_FORMS,
    "Praha/CZ-10/1## ##; Brno/CZ-64/6## ##; Ostrava/CZ-80/7## ##; Plzeň/CZ-32/3## ##; Kutná Hora/CZ-20/284 01; Olomouc/CZ-71/77# ##; Liberec/CZ-51/46# ##",
    { regionShare: 0.3, ra: ["RA000163"], raEntity: "########", lous: ["3157", "0979", "9845"], upper: 0.4, offset: "+02:00" },
  ),
  c(
    "SK",
    8,
    CS,
    SK_FORMS,
    "Bratislava/SK-BL/8## ##; Košice/SK-KI/040 ##; Nové Mesto nad Váhom/SK-TC/915 01; Dunajská Streda/SK-TA/92901; Žilina/SK-ZI/010 ##; Nitra/SK-NI/949 ##; Prešov/SK-PV/080 ##",
    { regionShare: 0.3, ra: ["RA000526"], raEntity: "########", lous: ["0979", "9845"], upper: 0.4, offset: "+02:00" },
  ),
  c(
    "HU",
    8,
    HU,
    HU_FORMS,
    "Budapest/HU-BU/1###; Debrecen/HU-HB/40##; Szeged/HU-CS/67##; Miskolc/HU-BZ/35##; Pécs/HU-BA/76##; Győr/HU-GS/90##; Komárom/HU-KE/2900; Hantos/HU-FE/2434",
    { regionShare: 0.8, ra: ["RA000263"], raEntity: "##-##-######", lous: ["0292", "5299", "9845"], upper: 0.4, offset: "+02:00" },
  ),
  c(
    "AT",
    10,
    DE,
    AT_FORMS,
    "Wien/AT-9/1###; Graz/AT-6/80##; Linz/AT-4/40##; Salzburg/AT-5/5020; Innsbruck/AT-7/60##; Klagenfurt/AT-2/90##; Treffen am Ossiachersee/AT-2/9521; Bregenz/AT-8/6900",
    { regionShare: 0.8, ra: ["RA000017"], raEntity: "FN ######@", lous: ["5299", "9845", "3912"], upper: 0.2, offset: "+02:00" },
  ),
  c(
    "CH",
    15,
    DE,
    CH_FORMS,
    "Zürich/CH-ZH/80##; Genève/CH-GE/12##; Basel/CH-BS/40##; Bern/CH-BE/30##; Lausanne/CH-VD/10##; Luzern/CH-LU/60##; Zug/CH-ZG/63##; Lugano/CH-TI/69##; St. Gallen/CH-SG/90##",
    {
      regionShare: 0.9,
      ra: ["RA000548"],
      raEntity: "CHE-###.###.###",
      lous: ["5067", "5299", "9845", "5493"],
      upper: 0.2,
      offset: "+02:00",
    },
  ),
  c(
    "PT",
    6,
    PT,
    PT_FORMS,
    "Lisboa/PT-11/1###-###; Porto/PT-13/4###-###; Matosinhos/PT-13/4450-259; GUIMARAES/PT-03/4810-485; Braga/PT-03/47##-###; Coimbra/PT-06/30##-###; Faro/PT-08/80##-###; Funchal/PT-30/90##-###",
    { regionShare: 0.3, ra: ["RA000495"], raEntity: "5########", lous: ["9598", "5299", "9845"], upper: 0.7, offset: "+01:00" },
  ),
  c(
    "GR",
    5,
    EL,
    GR_FORMS,
    "ΑΘΗΝΑ=ATHINA/GR-I/1## ##; Αθήνα=Athens/GR-I/10# ##; ΘΕΣΣΑΛΟΝΙΚΗ=THESSALONIKI/GR-B/5## ##; Πειραιάς=Piraeus/GR-I/185 ##; Πάτρα=Patra/GR-G/26# ##; Ηράκλειο=Heraklion/GR-M/71# ##",
    {
      english: 0.15,
      regionShare: 0.3,
      ra: ["RA000241"],
      raEntity: "############",
      lous: ["2138", "9845", "5299"],
      upper: 0.9,
      offset: "+03:00",
    },
  ),
  c(
    "CY",
    4,
    EN,
    CY_FORMS,
    "Nicosia/CY-01/1###; Λευκωσία=Lefkosia/CY-01/2###; Λεμεσός, Κύπρος=Lemesos/CY-02/3###; Limassol/CY-02/3###; Larnaca/CY-03/6###; Paphos/CY-05/8###",
    {
      english: 0.9,
      regionShare: 0.8,
      ra: ["RA000161"],
      raEntity: "HE######",
      lous: ["2138", "5493", "9845"],
      upper: 0.8,
      offset: "+03:00",
    },
  ),
  c(
    "RO",
    6,
    RO,
    RO_FORMS,
    "București/RO-B/0#####; Cluj-Napoca/RO-CJ/400###; TÂRGU MUREȘ/RO-MS/540252; Timișoara/RO-TM/300###; Iași/RO-IS/700###; Constanța/RO-CT/900###; Brașov/RO-BV/500###",
    { regionShare: 0.8, ra: ["RA000502"], raEntity: "J40/#####/20##", lous: ["7872", "9845", "5299"], upper: 0.8, offset: "+03:00" },
  ),
  c("BG", 4, BG, BG_FORMS, "София=Sofia/BG-22/1###; Пловдив=Plovdiv/BG-16/4###; Варна=Varna/BG-03/9###; Бургас=Burgas/BG-02/8###", {
    english: 0.3,
    regionShare: 0.4,
    ra: ["RA000069"],
    raEntity: "#########",
    lous: ["5299", "9845"],
    upper: 0.5,
    offset: "+03:00",
  }),
  c("EE", 5, BALTIC, BALTIC_FORMS_EE, "Tallinn/EE-37/1####; Tartu/EE-79/5####; Pärnu/EE-67/8####; Someru/EE-60/44201", {
    regionShare: 0.8,
    ra: ["RA000181"],
    raEntity: "########",
    lous: ["5299", "9845", "2549"],
    upper: 0.3,
    offset: "+03:00",
  }),
  c("LV", 3, BALTIC, BALTIC_FORMS_LV, "Riga/LV-RIX/LV-10##; Rīga/LV-RIX/LV-10##; Daugavpils/LV-DGV/LV-54##; Jelgava/LV-JEL/LV-30##", {
    regionShare: 0.8,
    ra: ["RA000423"],
    raEntity: "4000#######",
    lous: ["9845", "5299"],
    upper: 0.3,
    offset: "+03:00",
  }),
  c(
    "LT",
    4,
    BALTIC,
    BALTIC_FORMS_LT,
    "Vilnius/LT-57/LT-0####; Kaunas/LT-19/LT-4####; Klaipėda/LT-20/LT-9####; Didžioji Riešė/LT-57/14262",
    { regionShare: 0.5, ra: ["RA000428"], raEntity: "30#######", lous: ["9845", "5299"], upper: 0.3, offset: "+03:00" },
  ),
  c(
    "RU",
    8,
    RU,
    RU_FORMS,
    "Москва=Moskva/RU-MOW/1#####; Санкт-Петербург=Sankt-Peterburg/RU-SPE/19####; Новосибирск=Novosibirsk/RU-NVS/630###; Екатеринбург=Yekaterinburg/RU-SVE/620###; Казань=Kazan/RU-TA/420###; Нижний Новгород=Nizhniy Novgorod/RU-NIZ/603###",
    {
      english: 0.2,
      regionShare: 0.6,
      ra: ["RA000499"],
      raEntity: "1#############",
      lous: ["2534", "9845", "5493"],
      upper: 0.7,
      offset: "+03:00",
    },
  ),
  c(
    "UA",
    3,
    UK_UA,
    UA_FORMS,
    "Київ=Kyiv/UA-30/0####; L'Viv/UA-46/79011; Львів=Lviv/UA-46/79###; Одеса=Odesa/UA-51/65###; Харків=Kharkiv/UA-63/61###; Дніпро=Dnipro/UA-12/49###",
    { english: 0.4, regionShare: 0.7, ra: ["RA000614"], raEntity: "########", lous: ["9845", "5493"], upper: 0.6, offset: "+03:00" },
  ),
  c(
    "TR",
    8,
    TR,
    TR_FORMS,
    "İstanbul/TR-34/34###; Ankara/TR-06/06###; İzmir/TR-35/35###; Bursa/TR-16/16###; Antalya/TR-07/07###; Kocaeli/TR-41/41###; Gaziantep/TR-27/27###",
    { regionShare: 0.6, ra: ["RA000605"], raEntity: "######", lous: ["7890", "9845", "5493"], upper: 0.95, offset: "+03:00" },
  ),
  c(
    "IN",
    60,
    IN_LANG,
    IN_FORMS,
    "MUMBAI/IN-MH/400###; Mumbai/IN-MH/400###; PUNE/IN-MH/411###; NAGPUR/IN-MH/440###; NEW DELHI/IN-DL/110###; Delhi/IN-DL/110###; BENGALURU/IN-KA/560###; CHENNAI/IN-TN/600###; HYDERABAD/IN-TG/500###; KOLKATA/IN-WB/700###; AHMEDABAD/IN-GJ/380###; RAJKOT/IN-GJ/360311; Vadodara/IN-GJ/390024; JAIPUR/IN-RJ/302###; LUCKNOW/IN-UP/226###; ERNAKULAM/IN-KL/682###; JABALPUR/IN-MP/482###; INDORE/IN-MP/452###; LUDHIANA/IN-PB/141###; COIMBATORE/IN-TN/641###",
    {
      english: 1,
      regionShare: 0.95,
      ra: ["RA000394", "RA000395"],
      raEntity: "U#####MH20##PTC######",
      lous: ["3358", "8945", "9845"],
      upper: 0.85,
      offset: "+05:30",
    },
  ),
  c(
    "CN",
    25,
    ZH,
    CN_FORMS,
    "北京=Beijing/CN-BJ/100###; 海淀区=Haidian District/CN-BJ/100080; 上海=Shanghai/CN-SH/200###; 深圳=Shenzhen/CN-GD/518###; 广州=Guangzhou/CN-GD/510###; 杭州=Hangzhou/CN-ZJ/310###; 威海=Weihai/CN-SD/264###; 青岛=Qingdao/CN-SD/266###; 天津=Tianjin/CN-TJ/300###; 成都=Chengdu/CN-SC/610###; 武汉=Wuhan/CN-HB/430###; 南京=Nanjing/CN-JS/210###; 苏州=Suzhou/CN-JS/215###; 重庆=Chongqing/CN-CQ/400###",
    {
      english: 0.05,
      regionShare: 0.9,
      ra: ["RA000105"],
      raEntity: "91##############@@",
      lous: ["3003", "5493", "9845", "8945"],
      upper: 0.5,
      offset: "+08:00",
    },
  ),
  c(
    "HK",
    8,
    EN,
    HK_FORMS,
    "Hong Kong/HK-HCW/999077; Wanchai/HK-HWC/999077; Central/HK-HCW/999077; Kowloon/HK-KYT/999077; Tsim Sha Tsui/HK-KYT/",
    {
      english: 0.85,
      regionShare: 0.2,
      ra: ["RA000377"],
      raEntity: "#######",
      lous: ["5493", "9845", "2549"],
      upper: 0.6,
      offset: "+08:00",
    },
  ),
  c(
    "JP",
    20,
    JA,
    JP_FORMS,
    "東京都 港区=Minato-ku Tokyo/JP-13/1##-####; 東京都 千代田区=CHIYODA KU/JP-13/100-####; 東京都 中央区=Chuo-ku Tokyo/JP-13/10#-####; 大阪市=Osaka/JP-27/5##-####; 名古屋市=Nagoya/JP-23/4##-####; 横浜市=Yokohama/JP-14/2##-####; 福岡市=Fukuoka/JP-40/8##-####; 札幌市=Sapporo/JP-01/0##-####; 京都市=Kyoto/JP-26/6##-####; 神戸市=Kobe/JP-28/65#-####",
    {
      fundForms: JP_FUNDS,
      english: 0.1,
      regionShare: 0.6,
      ra: ["RA000413"],
      raEntity: "#############",
      lous: ["3538", "5493", "9845"],
      upper: 0.5,
      offset: "+09:00",
    },
  ),
  c(
    "KR",
    8,
    KO,
    KR_FORMS,
    "서울특별시=Seoul/KR-11/0####; 부산광역시=Busan/KR-26/4####; 인천광역시=Incheon/KR-28/2####; 대구광역시=Daegu/KR-27/4####; 성남시=Seongnam/KR-41/13###",
    {
      english: 0.15,
      regionShare: 0.6,
      ra: ["RA000418"],
      raEntity: "###-##-#####",
      lous: ["9884", "5493", "9845"],
      upper: 0.6,
      offset: "+09:00",
    },
  ),
  c("SG", 8, EN, SG_FORMS, "SINGAPORE/SG-01/0#####; Singapore/SG-01/1#####; SINGAPORE/SG-01/138588; Singapore/SG-03/5#####", {
    english: 1,
    regionShare: 0.6,
    ra: ["RA000523"],
    raEntity: "20#######@",
    lous: ["5493", "2549", "9845"],
    upper: 0.8,
    offset: "+08:00",
  }),
  c(
    "AU",
    15,
    EN,
    AU_FORMS,
    "Sydney/AU-NSW/2###; Melbourne/AU-VIC/3###; Murrumbeena/AU-VIC/3163; Camberwell/AU-VIC/3124; Brisbane/AU-QLD/4###; Perth/AU-WA/6###; Adelaide/AU-SA/5###; Canberra/AU-ACT/2###; Hobart/AU-TAS/7###; Darwin/AU-NT/08##",
    { regionShare: 0.95, ra: ["RA000014"], raEntity: "### ### ###", lous: ["9845", "5493", "2549"], upper: 0.7, offset: "+10:00" },
  ),
  c(
    "CA",
    18,
    EN,
    CA_FORMS,
    "Toronto/CA-ON/M#@ #@#; ANCASTER/CA-ON/L9G #@#; Ottawa/CA-ON/K#@ #@#; Vancouver/CA-BC/V#@ #@#; Calgary/CA-AB/T#@ #@#; Edmonton/CA-AB/T#@ #@#; Montréal/CA-QC/H#@ #@#; Quebec/CA-QC/G1Y #@#; Winnipeg/CA-MB/R#@ #@#; Halifax/CA-NS/B#@ #@#; Regina/CA-SK/S#@ #@#",
    {
      fundForms: forms("fund", [
        ["Fund|ETF|Allocation ETF|Income Fund|Pool|Corporate Class|Trust", "8888", 8, { other: "Mutual Fund Trust" }],
        ["Fund Limited Partnership|Fund LP", "1JGX", 3],
      ]),
      regionShare: 0.98,
      subdivisionJurisdiction: true,
      ra: ["RA000072", "RA000073", "RA000075"],
      raEntity: "#########",
      lous: ["5493", "2549", "9845"],
      upper: 0.6,
      offset: "-04:00",
    },
  ),
  c("KY", 20, EN, KY_FORMS, "George Town/KY-GT/KY1-1###; Camana Bay/KY-GT/KY1-9###; Grand Cayman/KY-GT/KY1-1104", {
    fundForms: KY_FUNDS,
    english: 1,
    regionShare: 0.1,
    ra: ["RA000087", "RA000088"],
    raEntity: "######",
    lous: ["5493", "2549", "9845"],
    upper: 0.5,
    offset: "-05:00",
  }),
  c("VG", 8, EN, VG_FORMS, "Road Town/VG-TOR/VG11#0; Tortola/VG-TOR/VG1110; Wickhams Cay 1/VG-TOR/VG1110", {
    english: 1,
    regionShare: 0.1,
    ra: ["RA000086"],
    raEntity: "#######",
    lous: ["5493", "2549", "9845"],
    upper: 0.5,
    offset: "-04:00",
  }),
  c("BM", 4, EN, BM_FORMS, "Hamilton/BM-HA/HM ##; Pembroke/BM-PEM/HM 08", {
    english: 1,
    regionShare: 0.2,
    ra: ["RA000063"],
    raEntity: "#####",
    lous: ["5493", "2549"],
    upper: 0.4,
    offset: "-03:00",
  }),
  c(
    "SA",
    6,
    AR,
    SA_FORMS,
    "الرياض=Riyadh/SA-01/1####; Riyadh/SA-01/12632; جدة=Jeddah/SA-02/2####; At Taif/SA-02/26513; الدمام=Dammam/SA-04/3####; مكة=Makkah/SA-02/2####",
    { english: 0.6, regionShare: 0.9, ra: ["RA000547"], raEntity: "10########", lous: ["5586", "9845"], upper: 0.2, offset: "+03:00" },
  ),
  c("AE", 5, AR, AE_FORMS, "دبي=Dubai/AE-DU/; Dubai/AE-DU/#####; Abu Dhabi/AE-AZ/#####; Sharjah/AE-SH/", {
    english: 0.8,
    regionShare: 0.9,
    subdivisionJurisdiction: false,
    ra: ["RA000715"],
    raEntity: "#######",
    lous: ["9845", "5493"],
    upper: 0.5,
    offset: "+04:00",
  }),
  c(
    "IL",
    3,
    HE,
    IL_FORMS,
    "תל אביב=Tel Aviv/IL-TA/6######; ירושלים=Jerusalem/IL-JM/9######; חיפה=Haifa/IL-HA/3######; Herzliya/IL-TA/46#####",
    { english: 0.4, regionShare: 0.5, ra: ["RA000386"], raEntity: "51-######-#", lous: ["9845", "5493"], upper: 0.6, offset: "+03:00" },
  ),
  c(
    "TH",
    3,
    TH,
    TH_FORMS,
    "กรุงเทพมหานคร=Bangkok/TH-10/10###; เชียงใหม่=Chiang Mai/TH-50/50###; ชลบุรี=Chon Buri/TH-20/20###; ภูเก็ต=Phuket/TH-83/83###",
    { english: 0.3, regionShare: 0.7, ra: ["RA000576"], raEntity: "0#############", lous: ["9845", "5493"], upper: 0.6, offset: "+07:00" },
  ),
  c(
    "BR",
    8,
    PT,
    BR_FORMS,
    "SAO PAULO/BR-SP/0####-###; São Paulo/BR-SP/0####-###; Rio de Janeiro/BR-RJ/2####-###; MIRANTE DO PARANAPANEMA/BR-SP/19260-000; IBAITI/BR-PR/84900-000; Belo Horizonte/BR-MG/3####-###; Curitiba/BR-PR/8####-###; Porto Alegre/BR-RS/9####-###; Brasília/BR-DF/7####-###",
    { regionShare: 0.95, ra: ["RA000067"], raEntity: "##.###.###/0001-##", lous: ["5493", "9845", "8945"], upper: 0.85, offset: "-03:00" },
  ),
  c(
    "MX",
    5,
    ES,
    MX_FORMS,
    "Ciudad de México/MX-CMX/1####; Mexico City/MX-CMX/0####; Monterrey/MX-NLE/64###; Guadalajara/MX-JAL/44###; Namiquipa/MX-CHH/31961; Puebla/MX-PUE/72###",
    { regionShare: 0.95, ra: ["RA000459"], raEntity: "@@@######@@#", lous: ["5493", "9845"], upper: 0.6, offset: "-06:00" },
  ),
  c("NG", 5, EN, NG_FORMS, "LAGOS/NG-LA/23401; Lagos/NG-LA/1#####; Abuja/NG-FC/9#####; Port Harcourt/NG-RI/5#####", {
    english: 1,
    regionShare: 0.95,
    ra: ["RA999999"],
    raEntity: "RC######",
    lous: ["9845", "8945"],
    upper: 0.9,
    offset: "+01:00",
  }),
  c("ZA", 5, EN, ZA_FORMS, "Johannesburg/ZA-GP/2###; Sandton/ZA-GP/2196; Cape Town/ZA-WC/8###; Durban/ZA-KZN/4###; Pretoria/ZA-GP/0###", {
    english: 1,
    regionShare: 0.7,
    ra: ["RA000566"],
    raEntity: "20##/######/07",
    lous: ["9845", "5493", "2138"],
    upper: 0.7,
    offset: "+02:00",
  }),
];

/** Category boosts: funds cluster in fund domiciles, sole proprietors where they register LEIs. */
export const CATEGORY_COUNTRY_BOOST: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  FUND: { US: 4, LU: 8, KY: 6, IE: 6, GB: 1.5, DE: 1.5, FR: 1.5, CA: 2, JP: 2, CH: 1.5 },
  SOLE_PROPRIETOR: { IT: 3, SA: 8, FR: 2, DK: 3, IN: 2, ES: 2, NO: 2, PL: 2 },
  RESIDENT_GOVERNMENT_ENTITY: { US: 3, IT: 2, FR: 2, DE: 2, ES: 1.5 },
  BRANCH: { GB: 3, DE: 2, FR: 2, LU: 2, IE: 2, SG: 2, HK: 2 },
  INTERNATIONAL_ORGANIZATION: { CH: 10, US: 5, LU: 5, FR: 3, BE: 3 },
};

/** Care-of first lines of registered agents: the noise that makes address search hard. */
export const CARE_OF: Readonly<Record<string, readonly string[]>> = {
  US: [
    "c/o THE CORPORATION TRUST COMPANY",
    "C/O Corporation Service Company",
    "c/o Cogency Global Inc.",
    "c/o National Registered Agents, Inc.",
    "C/O CT CORPORATION SYSTEM",
    "c/o The Prentice-Hall Corporation System, Inc.",
  ],
  KY: [
    "c/o Maples Corporate Services Limited",
    "C/O Walkers Corporate Limited",
    "c/o Ogier Global (Cayman) Limited",
    "P. O. Box 309",
    "PO Box 1348",
    "89 Nexus Way",
  ],
  VG: [
    "c/o Icaza, Gonzalez-Ruiz & Aleman (BVI) Trust Limited",
    "C/o Icaza, Gonzalez-Ruiz & Aleman (BVI) Trust Limtied",
    "Craigmuir Chambers",
    "Vistra Corporate Services Centre",
  ],
  LU: ["5, rue Guillaume J. Kroll", "2-4, rue Eugène Ruppert", "15, avenue J.F. Kennedy", "6, route de Trèves"],
  IE: ["70 SIR JOHN ROGERSON'S QUAY", "Harcourt Centre, Block 4, Harcourt Road", "32 Molesworth Street"],
  GB: ["C/O Baker Tilly", "5 FLEET PLACE", "1 Bartholomew Lane"],
  BM: ["Clarendon House, 2 Church Street", "100 Pitts Bay Road"],
};

export const ACTIVITY_EN_FUND: readonly Word[] = words(
  `Global_Equity Emerging_Markets_Debt Emerging_Markets_Bond High_Yield_Bond Investment_Grade_Credit Short_Duration_Income US_Large_Cap_Growth US_Small_Cap_Value European_Equity Japan_Equity Asia_Pacific_ex_Japan Gold_Target_Income Gold_Buffer Real_Estate_Income Infrastructure_Opportunities Private_Credit Multi-Asset_Income Balanced_Allocation Dividend_Growth Total_Return_Bond Municipal_Bond Inflation-Protected_Securities Money_Market Treasury_Obligations Sustainable_Equity Climate_Transition Technology_Leaders Healthcare_Innovation Global_Macro Long/Short_Equity Special_Situations Distressed_Debt Venture_Capital Growth_Equity USD_Bond EUR_Bond Emerging_Markets_Local_Currency Hard_Currency Enhanced_Equity Concentrated_Equity Small_Cap_Index Russell_1000_Growth_Index S&P_500_Index Global_Infrastructure`,
);

export const FUND_UMBRELLAS: readonly Word[] = words(
  `FIRST_TRUST_EXCHANGE-TRADED_FUND Institutional_Multiple_Investment_Fund PRUDENTIAL_INVESTMENT_PORTFOLIOS Vanguard Fidelity_Advisor BlackRock_Funds iShares Integrum StepStone Catalyst Bluerock LSV Schroder_International_Selection_Fund JPMorgan_Funds Amundi_Funds DWS Allianz_Global_Investors_Fund UBS_(Lux)_Fund_Solutions Nordea_1 Pictet Candriam Invesco_Funds Franklin_Templeton Goldman_Sachs_Funds Morgan_Stanley_Investment_Funds PIMCO_Funds AXA_World_Funds BNP_Paribas_Funds Natixis_International_Funds Aberdeen_Standard Legg_Mason_Global_Funds Columbia_Threadneedle Janus_Henderson Nuveen Eaton_Vance T._Rowe_Price MFS_Series_Trust Principal_Funds`,
);

export const GOVERNMENT_PATTERNS: Readonly<Record<string, readonly string[]>> = {
  en: [
    "City of {city}",
    "County of {city}",
    "{city} Fire Authority",
    "{city} Hospital District",
    "{city} School District",
    "{city} Water Authority",
    "{city} Housing Authority",
    "Town of {city}",
    "{city} Transit Authority",
    "State of {region} Treasury",
  ],
  de: [
    "Stadt {city}",
    "Gemeinde {city}",
    "Landkreis {city}",
    "Stadtwerke {city}",
    "Sparkasse {city}",
    "Katholische Kirchengemeinde St. Josef {city}",
  ],
  fr: ["Ville de {city}", "Commune de {city}", "Département de {city}", "Région {city}", "Centre Hospitalier de {city}"],
  it: ["COMUNE DI {city}", "PROVINCIA DI {city}", "AZIENDA SANITARIA LOCALE {city}", "REGIONE {city}"],
  es: [
    "AYUNTAMIENTO DE {city}",
    "DIPUTACION PROVINCIAL DE {city}",
    "CONSORCIO DE AGUAS DE {city}",
    "ENTIDADES DE DER. PUB. NO EST. {city}",
  ],
  other: ["{city} Municipality", "{city} Municipal Council", "Municipality of {city}"],
};

export const SUBCATEGORIES = ["CENTRAL_GOVERNMENT", "STATE_GOVERNMENT", "LOCAL_GOVERNMENT", "SOCIAL_SECURITY"] as const;

export const INTERNATIONAL_ORGS = [
  "European Investment Bank",
  "International Finance Corporation",
  "Asian Infrastructure Investment Bank",
  "Nordic Investment Bank",
  "European Bank for Reconstruction and Development",
  "Council of Europe Development Bank",
  "International Bank for Reconstruction and Development",
  "African Development Bank",
  "Inter-American Development Bank",
  "European Stability Mechanism",
  "Bank for International Settlements",
  "International Fund for Agricultural Development",
  "Islamic Development Bank",
  "Eurofima European Company for the Financing of Railroad Rolling Stock",
] as const;

export const EVENT_TYPES = [
  "CHANGE_LEGAL_NAME",
  "CHANGE_LEGAL_ADDRESS",
  "CHANGE_HQ_ADDRESS",
  "CHANGE_LEGAL_FORM",
  "MERGERS_AND_ACQUISITIONS",
  "DISSOLUTION",
  "INSOLVENCY",
  "TRANSFORMATION_UMBRELLA_TO_STANDALONE",
] as const;
export const VALIDATION_DOCUMENTS = [
  "SUPPORTING_DOCUMENTS",
  "ACCOUNTS_FILING",
  "REGULATORY_FILING",
  "CONTRACTS",
  "OTHER_OFFICIAL_DOCUMENTS",
] as const;

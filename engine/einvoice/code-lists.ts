// The code lists the engine checks natively (docs/einvoice.md, "Code lists"). Currencies and
// countries are complete ISO lists; Rec. 20 units and UNCL 4461 payment means are the subsets
// invoices use (the full Rec. 20 list has ~2,000 codes): a code outside them fails the render
// with the list's name, and the documentation says how to ask for more.

const set = (s: string): ReadonlySet<string> => new Set(s.split(/\s+/).filter((x) => x !== ''))

/** ISO 4217 alphabetic codes of current currencies. */
export const CURRENCIES = set(`
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD
CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP
GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW
KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN
NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL
SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES
VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XDR XOF XPD XPF XPT XSU XTS XUA XXX YER ZAR ZMW ZWL`)

/** ISO 3166-1 alpha-2 country codes (and XI, Northern Ireland, which EN 16931 allows). */
export const COUNTRIES = set(`
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW
BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI
FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN
IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME
MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF
PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV
SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE
YT ZA ZM ZW XI`)

/** UN/ECE Recommendation 20 (with Rec. 21 packaging codes X..) units invoices use. */
export const UNITS = set(`
C62 H87 EA XPP XBX XPK XPA XCT SET PR NPR DZN HUR MIN SEC DAY WEE MON ANN KGM GRM MGM TNE LTR MLT CLT
MTQ MTK CMK MTR CMT MMT KMT KWH KWT WTT MWH GWH LS ZZ E48 P1 A9 KTM FOT INH YRD LBR ONZ GLL`)

/** UNCL 4461 payment means codes (BT-81). */
export const PAYMENT_MEANS = set('1 10 20 30 31 42 48 49 54 55 57 58 59 68 97 ZZZ')

/** UNCL 5305 VAT categories the engine supports (L and M, the Canary Islands and Ceuta/Melilla taxes, are not). */
export const VAT_CATEGORIES = set('S Z E AE K G O')

/** UNCL 1001 invoice type codes (BT-3): invoice, credit note, corrected invoice, self-billed invoice. */
export const TYPE_CODES = set('380 381 384 389')

/** Exemption reason (BT-120) printed for a category when the template gives none. */
export const DEFAULT_EXEMPTION: Readonly<Record<string, string>> = {
  E: 'Exempt from VAT',
  AE: 'Reverse charge',
  K: 'Intra-community supply',
  G: 'Export outside the EU',
  O: 'Not subject to VAT'
}

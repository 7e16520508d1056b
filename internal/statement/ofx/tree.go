package ofx

// This file decides the shape of the element tree. OFX 1.x is SGML: end tags of leaf elements
// are optional, end tags of aggregates are required. A start tag therefore opens an aggregate
// exactly when its own end tag follows at the same level; otherwise it is a leaf whose value is
// the text up to the next tag. matchAggregates finds out in one pass over the tags, the
// parser's walk then uses the answer in a second. OFX 2.x XML is the special case in which
// every tag is closed.

// Tag names the parser reads. They are interned first, so their ids are these constants.
const (
	idOFX int32 = iota
	idSONRS
	idFI
	idORG
	idFID
	idINTUBID
	idSTMTTRNRS
	idSTMTRS
	idCCSTMTTRNRS
	idCCSTMTRS
	idINVSTMTRS
	idCURDEF
	idBANKACCTFROM
	idCCACCTFROM
	idBANKID
	idBRANCHID
	idACCTID
	idBANKTRANLIST
	idDTSTART
	idDTEND
	idSTMTTRN
	idTRNTYPE
	idDTPOSTED
	idDTUSER
	idDTAVAIL
	idVALUEDATE
	idTRNAMT
	idFITID
	idREFNUM
	idCHECKNUM
	idNAME
	idEXTDNAME
	idPAYEE
	idMEMO
	idBANKACCTTO
	idCCACCTTO
	idCURRENCY
	idORIGCURRENCY
	idCURSYM
	idACCTBAL
	idLEDGERBAL
	idBALAMT
	idDTASOF
	idBANKMSGSRSV1
	idCREDITCARDMSGSRSV1
	idSIGNONMSGSRSV1
	numKnown
)

var knownNames = [numKnown]string{
	idOFX:                "OFX",
	idSONRS:              "SONRS",
	idFI:                 "FI",
	idORG:                "ORG",
	idFID:                "FID",
	idINTUBID:            "INTU.BID",
	idSTMTTRNRS:          "STMTTRNRS",
	idSTMTRS:             "STMTRS",
	idCCSTMTTRNRS:        "CCSTMTTRNRS",
	idCCSTMTRS:           "CCSTMTRS",
	idINVSTMTRS:          "INVSTMTRS",
	idCURDEF:             "CURDEF",
	idBANKACCTFROM:       "BANKACCTFROM",
	idCCACCTFROM:         "CCACCTFROM",
	idBANKID:             "BANKID",
	idBRANCHID:           "BRANCHID",
	idACCTID:             "ACCTID",
	idBANKTRANLIST:       "BANKTRANLIST",
	idDTSTART:            "DTSTART",
	idDTEND:              "DTEND",
	idSTMTTRN:            "STMTTRN",
	idTRNTYPE:            "TRNTYPE",
	idDTPOSTED:           "DTPOSTED",
	idDTUSER:             "DTUSER",
	idDTAVAIL:            "DTAVAIL",
	idVALUEDATE:          "VALUEDATE",
	idTRNAMT:             "TRNAMT",
	idFITID:              "FITID",
	idREFNUM:             "REFNUM",
	idCHECKNUM:           "CHECKNUM",
	idNAME:               "NAME",
	idEXTDNAME:           "EXTDNAME",
	idPAYEE:              "PAYEE",
	idMEMO:               "MEMO",
	idBANKACCTTO:         "BANKACCTTO",
	idCCACCTTO:           "CCACCTTO",
	idCURRENCY:           "CURRENCY",
	idORIGCURRENCY:       "ORIGCURRENCY",
	idCURSYM:             "CURSYM",
	idACCTBAL:            "ACCTBAL",
	idLEDGERBAL:          "LEDGERBAL",
	idBALAMT:             "BALAMT",
	idDTASOF:             "DTASOF",
	idBANKMSGSRSV1:       "BANKMSGSRSV1",
	idCREDITCARDMSGSRSV1: "CREDITCARDMSGSRSV1",
	idSIGNONMSGSRSV1:     "SIGNONMSGSRSV1",
}

// maxNames bounds the distinct tag names of one file. OFX defines a few hundred; a file with
// more is not OFX, and the bound keeps the name table small whatever the input.
const maxNames = 10_000

// names interns tag names, upper-cased, so tags compare as small integers.
type names struct {
	ids     map[string]int32
	list    []string
	scratch []byte
	// cache remembers the id of a recent name by a cheap hash of it: a file uses a few dozen
	// names over and over, and this spares most map lookups.
	cache [256]int32
	// intu is set when an Intuit extension tag (INTU.BID, INTU.USERID ...) was seen: a QFX file.
	intu bool
}

func newNames() *names {
	n := &names{ids: make(map[string]int32, 128), list: make([]string, 0, 128)}
	for i := range n.cache {
		n.cache[i] = -1
	}
	for _, s := range knownNames {
		n.add(s)
	}
	return n
}

func (n *names) add(s string) int32 {
	id := int32(len(n.list))
	n.ids[s] = id
	n.list = append(n.list, s)
	if id >= numKnown && len(s) > 5 && s[:5] == "INTU." {
		n.intu = true
	}
	return id
}

// id returns the id of a tag name, or -1 when the file has too many distinct names.
func (n *names) id(b []byte) int32 {
	h := 0
	if len(b) > 0 {
		h = (len(b)*31 + int(b[0])*7 + int(b[len(b)-1])*3 + int(b[len(b)/2])) & 255
		if id := n.cache[h]; id >= 0 && n.list[id] == string(b) {
			if id == idINTUBID {
				n.intu = true
			}
			return id
		}
	}
	id := n.lookup(b)
	if id >= 0 && len(b) > 0 {
		n.cache[h] = id
	}
	return id
}

func (n *names) lookup(b []byte) int32 {
	if id, ok := n.ids[string(b)]; ok {
		if id == idINTUBID {
			n.intu = true
		}
		return id
	}
	up := n.scratch[:0]
	lower := false
	for _, c := range b {
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
			lower = true
		}
		up = append(up, c)
	}
	n.scratch = up
	if lower {
		if id, ok := n.ids[string(up)]; ok {
			if id == idINTUBID {
				n.intu = true
			}
			return id
		}
	}
	if len(n.list) >= maxNames {
		return -1
	}
	return n.add(string(up))
}

// matchAggregates runs the scanner over body and returns, for each start tag that is not
// closed at once (in order), whether a matching end tag closes it at its own level: an end tag
// closes the nearest open element of its name, and every element opened after that one and
// still open is a leaf without end tag. End tags that match nothing open are ignored. The
// work is linear: each tag is pushed and popped once, and counts per name answer "is any
// element of this name open?" without searching the stack.
//
// It also counts the STMTTRN aggregates, so that the transactions can be allocated at once.
func matchAggregates(body []byte, nm *names) (matched []bool, trns int, ok bool) {
	type open struct {
		id   int32
		cand int32
	}
	var (
		s     = scanner{b: body}
		t     token
		stack []open
		count = make([]int32, 0, 256)
	)
	matched = make([]bool, 0, len(body)/32)
	for s.next(&t) {
		if t.kind == tokStart && t.closed {
			continue
		}
		id := nm.id(t.name)
		if id < 0 {
			return nil, 0, false
		}
		for int(id) >= len(count) {
			count = append(count, 0)
		}
		if t.kind == tokStart {
			if id == idSTMTTRN {
				trns++
			}
			stack = append(stack, open{id, int32(len(matched))})
			matched = append(matched, false)
			count[id]++
			continue
		}
		if count[id] == 0 {
			continue // stray end tag
		}
		for {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			count[top.id]--
			if top.id == id {
				matched[top.cand] = true
				break
			}
		}
	}
	return matched, trns, true
}

package camt

// kind is what an element means to the parser, decided on its start tag from its parent's kind
// and its local name (namespace prefixes are ignored, so every version and prefix style reads
// alike). Elements of no interest are kindSkip, and so is everything inside them, which keeps
// the per-token work to one switch.
type kind uint8

const (
	kSkip kind = iota
	kDocument
	kMessage // BkToCstmrStmt, BkToCstmrAcctRpt, BkToCstmrDbtCdtNtfctn (V01: ...V01)
	kGrpHdr
	kGrpCreDtTm
	kSection // Stmt, Rpt, Ntfctn
	kSecCreDtTm
	kFrToDt
	kFrDt // FrToDt/FrDtTm or FrDt
	kToDt // FrToDt/ToDtTm or ToDt
	kAcct
	kAcctID
	kAcctOthr // Acct/Id/Othr, and V01's PrtryAcct and DmstAcct
	kAcctNo   // Acct/Id/IBAN, BBAN, UPIC, Othr/Id
	kAcctCcy
	kSvcr
	kSvcrFin
	kSvcrBIC // Svcr/FinInstnId/BIC (up to V02) or BICFI (V03 on)
	kBal
	kBalTp
	kBalCdOrPrtry
	kBalCd
	kBalAmt
	kBalCdi
	kBalDt
	kBalDtVal
	kSumm       // TxsSummry
	kTtl        // TxsSummry/TtlNtries
	kTtlNb      // TtlNtries/NbOfNtries
	kTtlSum     // TtlNtries/Sum: credits plus debits, as absolute amounts
	kTtlNet     // TtlNtries/TtlNetNtry (V03 on)
	kTtlNetAmt  // TtlNtries/TtlNetNtryAmt (V01, V02) or TtlNetNtry/Amt
	kTtlNetCdi  // the CdtDbtInd beside either
	kTtlCdt     // TxsSummry/TtlCdtNtries
	kTtlCdtNb   // TtlCdtNtries/NbOfNtries
	kTtlCdtSum  // TtlCdtNtries/Sum
	kTtlDbt     // TxsSummry/TtlDbtNtries
	kTtlDbtNb   // TtlDbtNtries/NbOfNtries
	kTtlDbtSum  // TtlDbtNtries/Sum
	kNtry       // Ntry
	kNtryAmt    // Ntry/Amt
	kNtryCdi    // Ntry/CdtDbtInd
	kNtryRvsl   // Ntry/RvslInd
	kNtrySts    // Ntry/Sts: the code as text up to V07
	kNtryStsCd  // Ntry/Sts/Cd or Sts/Prtry (V08 on)
	kNtryBookg  // Ntry/BookgDt
	kNtryVal    // Ntry/ValDt
	kNtryBookgV // BookgDt/Dt or DtTm
	kNtryValV   // ValDt/Dt or DtTm
	kNtrySvcRef // Ntry/AcctSvcrRef
	kNtryRef    // Ntry/NtryRef
	kNtryAddtl  // Ntry/AddtlNtryInf
	kDtls       // Ntry/NtryDtls
	kTx         // NtryDtls/TxDtls
	kRefs       // TxDtls/Refs
	kE2E        // Refs/EndToEndId
	kTxSvcRef   // Refs/AcctSvcrRef
	kTxID       // Refs/TxId
	kParties    // TxDtls/RltdPties
	kDbtr       // RltdPties/Dbtr, and Dbtr/Pty (V08 on)
	kCdtr       // RltdPties/Cdtr, and Cdtr/Pty (V08 on)
	kDbtrNm
	kCdtrNm
	kDbtrAcct
	kCdtrAcct
	kDbtrAcctID
	kCdtrAcctID
	kDbtrAcctOthr
	kCdtrAcctOthr
	kDbtrAcctNo
	kCdtrAcctNo
	kRmt       // TxDtls/RmtInf
	kUstrd     // RmtInf/Ustrd
	kStrd      // RmtInf/Strd
	kCdtrRefIn // Strd/CdtrRefInf
	kCdtrRef   // CdtrRefInf/Ref
	kAddtlRmt  // Strd/AddtlRmtInf
	kAddtlTx   // TxDtls/AddtlTxInf
	numKinds
)

// captures says which kinds are leaves whose text the parser keeps.
var captures = func() (c [numKinds]bool) {
	for _, k := range []kind{kGrpCreDtTm, kSecCreDtTm, kFrDt, kToDt, kAcctNo, kAcctCcy, kSvcrBIC,
		kBalCd, kBalAmt, kBalCdi, kBalDtVal, kTtlNb, kTtlSum, kTtlNetAmt, kTtlNetCdi, kTtlCdtNb,
		kTtlCdtSum, kTtlDbtNb, kTtlDbtSum, kNtryAmt, kNtryCdi, kNtryRvsl, kNtrySts, kNtryStsCd,
		kNtryBookgV, kNtryValV, kNtrySvcRef, kNtryRef, kNtryAddtl, kE2E, kTxSvcRef, kTxID, kDbtrNm,
		kCdtrNm, kDbtrAcctNo, kCdtrAcctNo, kUstrd, kCdtrRef, kAddtlRmt, kAddtlTx} {
		c[k] = true
	}
	return c
}()

// child returns the kind of an element named local inside an element of kind parent.
func child(parent kind, local string) kind {
	switch parent {
	case kMessage:
		switch local {
		case "GrpHdr":
			return kGrpHdr
		case "Stmt", "Rpt", "Ntfctn":
			return kSection
		}
	case kGrpHdr:
		if local == "CreDtTm" {
			return kGrpCreDtTm
		}
	case kSection:
		switch local {
		case "Ntry":
			return kNtry
		case "Bal":
			return kBal
		case "Acct":
			return kAcct
		case "CreDtTm":
			return kSecCreDtTm
		case "FrToDt":
			return kFrToDt
		case "TxsSummry":
			return kSumm
		}
	case kFrToDt:
		switch local {
		case "FrDtTm", "FrDt":
			return kFrDt
		case "ToDtTm", "ToDt":
			return kToDt
		}
	case kAcct:
		switch local {
		case "Id":
			return kAcctID
		case "Ccy":
			return kAcctCcy
		case "Svcr":
			return kSvcr
		}
	case kAcctID:
		switch local {
		case "IBAN", "BBAN", "UPIC":
			return kAcctNo
		case "Othr", "PrtryAcct", "DmstAcct":
			return kAcctOthr
		}
	case kAcctOthr:
		if local == "Id" {
			return kAcctNo
		}
	case kSvcr:
		if local == "FinInstnId" {
			return kSvcrFin
		}
	case kSvcrFin:
		if local == "BIC" || local == "BICFI" {
			return kSvcrBIC
		}
	case kBal:
		switch local {
		case "Tp":
			return kBalTp
		case "Amt":
			return kBalAmt
		case "CdtDbtInd":
			return kBalCdi
		case "Dt":
			return kBalDt
		}
	case kBalTp:
		switch local {
		case "CdOrPrtry":
			return kBalCdOrPrtry
		case "Cd":
			return kBalCd
		}
	case kBalCdOrPrtry:
		if local == "Cd" {
			return kBalCd
		}
	case kBalDt:
		if local == "Dt" || local == "DtTm" {
			return kBalDtVal
		}
	case kSumm:
		switch local {
		case "TtlNtries":
			return kTtl
		case "TtlCdtNtries":
			return kTtlCdt
		case "TtlDbtNtries":
			return kTtlDbt
		}
	case kTtl:
		switch local {
		case "NbOfNtries":
			return kTtlNb
		case "Sum":
			return kTtlSum
		case "TtlNetNtry":
			return kTtlNet
		case "TtlNetNtryAmt":
			return kTtlNetAmt
		case "CdtDbtInd":
			return kTtlNetCdi
		}
	case kTtlNet:
		switch local {
		case "Amt":
			return kTtlNetAmt
		case "CdtDbtInd":
			return kTtlNetCdi
		}
	case kTtlCdt:
		switch local {
		case "NbOfNtries":
			return kTtlCdtNb
		case "Sum":
			return kTtlCdtSum
		}
	case kTtlDbt:
		switch local {
		case "NbOfNtries":
			return kTtlDbtNb
		case "Sum":
			return kTtlDbtSum
		}
	case kNtry:
		switch local {
		case "Amt":
			return kNtryAmt
		case "CdtDbtInd":
			return kNtryCdi
		case "RvslInd":
			return kNtryRvsl
		case "Sts":
			return kNtrySts
		case "BookgDt":
			return kNtryBookg
		case "ValDt":
			return kNtryVal
		case "AcctSvcrRef":
			return kNtrySvcRef
		case "NtryRef":
			return kNtryRef
		case "AddtlNtryInf":
			return kNtryAddtl
		case "NtryDtls":
			return kDtls
		}
	case kNtrySts:
		if local == "Cd" || local == "Prtry" {
			return kNtryStsCd
		}
	case kNtryBookg:
		if local == "Dt" || local == "DtTm" {
			return kNtryBookgV
		}
	case kNtryVal:
		if local == "Dt" || local == "DtTm" {
			return kNtryValV
		}
	case kDtls:
		if local == "TxDtls" {
			return kTx
		}
	case kTx:
		switch local {
		case "Refs":
			return kRefs
		case "RltdPties":
			return kParties
		case "RmtInf":
			return kRmt
		case "AddtlTxInf":
			return kAddtlTx
		}
	case kRefs:
		switch local {
		case "EndToEndId":
			return kE2E
		case "AcctSvcrRef":
			return kTxSvcRef
		case "TxId":
			return kTxID
		}
	case kParties:
		switch local {
		case "Dbtr":
			return kDbtr
		case "Cdtr":
			return kCdtr
		case "DbtrAcct":
			return kDbtrAcct
		case "CdtrAcct":
			return kCdtrAcct
		}
	case kDbtr:
		switch local {
		case "Nm":
			return kDbtrNm
		case "Pty":
			return kDbtr
		}
	case kCdtr:
		switch local {
		case "Nm":
			return kCdtrNm
		case "Pty":
			return kCdtr
		}
	case kDbtrAcct:
		if local == "Id" {
			return kDbtrAcctID
		}
	case kCdtrAcct:
		if local == "Id" {
			return kCdtrAcctID
		}
	case kDbtrAcctID:
		switch local {
		case "IBAN", "BBAN", "UPIC":
			return kDbtrAcctNo
		case "Othr", "PrtryAcct", "DmstAcct":
			return kDbtrAcctOthr
		}
	case kCdtrAcctID:
		switch local {
		case "IBAN", "BBAN", "UPIC":
			return kCdtrAcctNo
		case "Othr", "PrtryAcct", "DmstAcct":
			return kCdtrAcctOthr
		}
	case kDbtrAcctOthr:
		if local == "Id" {
			return kDbtrAcctNo
		}
	case kCdtrAcctOthr:
		if local == "Id" {
			return kCdtrAcctNo
		}
	case kRmt:
		switch local {
		case "Ustrd":
			return kUstrd
		case "Strd":
			return kStrd
		}
	case kStrd:
		switch local {
		case "CdtrRefInf":
			return kCdtrRefIn
		case "AddtlRmtInf":
			return kAddtlRmt
		}
	case kCdtrRefIn:
		if local == "Ref" {
			return kCdtrRef
		}
	}
	return kSkip
}

// The words seeded texts are drawn from (run inputs, memory records): ordinary support-desk English, so
// full-text search sees realistic term frequencies rather than one repeated sentence.
export const VOCABULARY = `
account address agent alert answer april archive area arrival assistant august balance bank battery
bill billing booking branch budget bug build cable calendar call camera cancel card cart case catalog
change charge check city claim client code colour command comment company complaint contract copy cost
country coupon credit customer dashboard data date deadline delivery department deposit design device
discount dispute document domain draft driver email engine error estimate event export failure feature
february fee file filter flight folder form friday garden gift guest hardware headset holiday hotel
hour invoice issue item january july june key label laptop lease letter license limit link list loan
login march market may meeting member memo message method mobile monday month mortgage network night
note notice november number october offer office order outage owner package page parcel partner
password payment pension permit phone photo plan policy portal price printer priority product profile
project purchase quote rate receipt record refund region reminder renewal rent repair report request
reservation return review room route router salary sale schedule screen seat september server service
session shipment shop signature size software statement status storage store subscription summary
supplier support survey tablet tax team ticket time token total tracking training transfer travel
trip tuesday update upgrade upload user vendor version visit voucher wallet warranty website
wednesday week window wire work
`
  .trim()
  .split(/\s+/);

/** A filler text the assistant's answer parts are cut from (offsets and lengths vary per item). */
export const ANSWER_TEXT = Array.from({ length: 40 }, (_, i) => VOCABULARY[(i * 37) % VOCABULARY.length])
  .join(' ')
  .repeat(12);

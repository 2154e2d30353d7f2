//! The one AEAD of record files and fields: AES-256-GCM-SIV (RFC 8452), 12-byte nonce,
//! 16-byte tag after the ciphertext. It seals every page and root, the key slots' data key
//! and every encrypted field.
//!
//! Built with the `aws-lc` feature (the default), the cipher is aws-lc-rs's: it opens a
//! 4 KiB page in three quarters of the time of RustCrypto's `aes-gcm-siv` (`cargo bench
//! --bench records`, "open a 4 KiB page" rows) and seals a field value of a few dozen bytes
//! in a quarter of it (RustCrypto's expands the per-message AES-256 key in software).
//! Without the feature, RustCrypto's. Both give the same bytes: the tests check them
//! against each other (proptest) and against RFC 8452's AES-256-GCM-SIV vectors.

#[cfg(not(feature = "aws-lc"))]
use aes_gcm_siv::aead::KeyInit;
#[cfg(any(test, not(feature = "aws-lc")))]
use aes_gcm_siv::{Aes256GcmSiv, aead::AeadInOut};

/// The length of a tag.
pub const TAG: usize = 16;

/// An AES-256-GCM-SIV key, ready to seal and open.
pub struct GcmSiv {
    #[cfg(feature = "aws-lc")]
    inner: aws_lc_rs::aead::LessSafeKey,
    #[cfg(not(feature = "aws-lc"))]
    inner: Aes256GcmSiv,
}

impl GcmSiv {
    /// The cipher of `key`.
    pub fn new(key: &[u8; 32]) -> GcmSiv {
        // aws-lc reads the processor's features once, here rather than at every process
        // start when built without its static initialiser (.cargo/config.toml).
        #[cfg(feature = "aws-lc")]
        aws_lc_rs::init();
        #[cfg(feature = "aws-lc")]
        let inner = aws_lc_rs::aead::LessSafeKey::new(
            aws_lc_rs::aead::UnboundKey::new(&aws_lc_rs::aead::AES_256_GCM_SIV, key)
                .expect("a 32-byte key"),
        );
        #[cfg(not(feature = "aws-lc"))]
        let inner = Aes256GcmSiv::new_from_slice(key).expect("a 32-byte key");
        GcmSiv { inner }
    }

    /// Encrypts `buf` in place and returns its tag; `None` only for a message longer than
    /// the cipher takes (2^36 bytes).
    pub fn seal(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> Option<[u8; TAG]> {
        #[cfg(feature = "aws-lc")]
        {
            use aws_lc_rs::aead::{Aad, Nonce};
            let tag = self
                .inner
                .seal_in_place_separate_tag(
                    Nonce::assume_unique_for_key(*nonce),
                    Aad::from(aad),
                    buf,
                )
                .ok()?;
            tag.as_ref().try_into().ok()
        }
        #[cfg(not(feature = "aws-lc"))]
        seal_rustcrypto(&self.inner, nonce, aad, buf)
    }

    /// Decrypts `sealed` (ciphertext then tag) in place and returns the plaintext, the
    /// first `sealed.len() - 16` bytes; `None` when it does not authenticate, and then
    /// `sealed` holds no plaintext (it is zeroed).
    pub fn open<'a>(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        sealed: &'a mut [u8],
    ) -> Option<&'a mut [u8]> {
        let n = sealed.len().checked_sub(TAG)?;
        #[cfg(feature = "aws-lc")]
        let ok = {
            use aws_lc_rs::aead::{Aad, Nonce};
            self.inner
                .open_in_place(Nonce::assume_unique_for_key(*nonce), Aad::from(aad), sealed)
                .is_ok()
        };
        #[cfg(not(feature = "aws-lc"))]
        let ok = open_rustcrypto(&self.inner, nonce, aad, sealed);
        if !ok {
            sealed.fill(0);
            return None;
        }
        Some(&mut sealed[..n])
    }

    /// Decrypts `sealed` (ciphertext then tag) into `out`, which must be 16 bytes shorter,
    /// leaving `sealed` as it is: true when it authenticates; otherwise false, and `out`
    /// holds no plaintext (it is zeroed). What is authenticated is the plaintext written
    /// to `out` (the tag is checked over it), so `sealed` may be memory another process can
    /// change meanwhile (a mapped file): a change makes the open fail, never pass.
    pub fn open_into(&self, nonce: &[u8; 12], aad: &[u8], sealed: &[u8], out: &mut [u8]) -> bool {
        let n = out.len();
        if sealed.len().checked_sub(TAG) != Some(n) {
            out.fill(0);
            return false;
        }
        #[cfg(feature = "aws-lc")]
        let ok = {
            use aws_lc_rs::aead::{Aad, Nonce};
            self.inner
                .open_separate_gather(
                    Nonce::assume_unique_for_key(*nonce),
                    Aad::from(aad),
                    &sealed[..n],
                    &sealed[n..],
                    out,
                )
                .is_ok()
        };
        #[cfg(not(feature = "aws-lc"))]
        let ok = {
            out.copy_from_slice(&sealed[..n]);
            let tag: [u8; TAG] = sealed[n..].try_into().expect("16 bytes");
            self.inner
                .decrypt_inout_detached(&(*nonce).into(), aad, out.into(), &tag.into())
                .is_ok()
        };
        if !ok {
            out.fill(0);
        }
        ok
    }
}

#[cfg(any(test, not(feature = "aws-lc")))]
/// RustCrypto's seal: the fallback, and the reference the tests hold aws-lc-rs's to.
fn seal_rustcrypto(
    c: &Aes256GcmSiv,
    nonce: &[u8; 12],
    aad: &[u8],
    buf: &mut [u8],
) -> Option<[u8; TAG]> {
    let tag = c
        .encrypt_inout_detached(&(*nonce).into(), aad, buf.into())
        .ok()?;
    Some(tag.into())
}

#[cfg(any(test, not(feature = "aws-lc")))]
/// RustCrypto's open of ciphertext then tag, in place; whether it authenticated.
fn open_rustcrypto(c: &Aes256GcmSiv, nonce: &[u8; 12], aad: &[u8], sealed: &mut [u8]) -> bool {
    let Some(n) = sealed.len().checked_sub(TAG) else {
        return false;
    };
    let (body, tag) = sealed.split_at_mut(n);
    let tag: [u8; TAG] = (&*tag).try_into().expect("16 bytes");
    c.decrypt_inout_detached(&(*nonce).into(), aad, body.into(), &tag.into())
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes_gcm_siv::aead::KeyInit;
    use proptest::prelude::*;

    fn unhex(s: &str) -> Vec<u8> {
        const_hex::decode(s).expect("hex")
    }

    /// RFC 8452, Appendix C.2 (AEAD_AES_256_GCM_SIV), all 24: key, nonce, plaintext,
    /// AAD, and ciphertext followed by the tag.
    const RFC8452: &[(&str, &str, &str, &str, &str)] = &[
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "",
            "",
            "07f5f4169bbf55a8400cd47ea6fd400f",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "0100000000000000",
            "",
            "c2ef328e5c71c83b843122130f7364b761e0b97427e3df28",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "010000000000000000000000",
            "",
            "9aab2aeb3faa0a34aea8e2b18ca50da9ae6559e48fd10f6e5c9ca17e",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "01000000000000000000000000000000",
            "",
            "85a01b63025ba19b7fd3ddfc033b3e76c9eac6fa700942702e90862383c6c366",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "0100000000000000000000000000000002000000000000000000000000000000",
            "",
            "4a6a9db4c8c6549201b9edb53006cba821ec9cf850948a7c86c68ac7539d027fe819e63abcd020b006a976397632eb5d",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "010000000000000000000000000000000200000000000000000000000000000003000000000000000000000000000000",
            "",
            "c00d121893a9fa603f48ccc1ca3c57ce7499245ea0046db16c53c7c66fe717e39cf6c748837b61f6ee3adcee17534ed5790bc96880a99ba804bd12c0e6a22cc4",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "01000000000000000000000000000000020000000000000000000000000000000300000000000000000000000000000004000000000000000000000000000000",
            "",
            "c2d5160a1f8683834910acdafc41fbb1632d4a353e8b905ec9a5499ac34f96c7e1049eb080883891a4db8caaa1f99dd004d80487540735234e3744512c6f90ce112864c269fc0d9d88c61fa47e39aa08",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "0200000000000000",
            "01",
            "1de22967237a813291213f267e3b452f02d01ae33e4ec854",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "020000000000000000000000",
            "01",
            "163d6f9cc1b346cd453a2e4cc1a4a19ae800941ccdc57cc8413c277f",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "02000000000000000000000000000000",
            "01",
            "c91545823cc24f17dbb0e9e807d5ec17b292d28ff61189e8e49f3875ef91aff7",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "0200000000000000000000000000000003000000000000000000000000000000",
            "01",
            "07dad364bfc2b9da89116d7bef6daaaf6f255510aa654f920ac81b94e8bad365aea1bad12702e1965604374aab96dbbc",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "020000000000000000000000000000000300000000000000000000000000000004000000000000000000000000000000",
            "01",
            "c67a1f0f567a5198aa1fcc8e3f21314336f7f51ca8b1af61feac35a86416fa47fbca3b5f749cdf564527f2314f42fe2503332742b228c647173616cfd44c54eb",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "02000000000000000000000000000000030000000000000000000000000000000400000000000000000000000000000005000000000000000000000000000000",
            "01",
            "67fd45e126bfb9a79930c43aad2d36967d3f0e4d217c1e551f59727870beefc98cb933a8fce9de887b1e40799988db1fc3f91880ed405b2dd298318858467c895bde0285037c5de81e5b570a049b62a0",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "02000000",
            "010000000000000000000000",
            "22b3f4cd1835e517741dfddccfa07fa4661b74cf",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "0300000000000000000000000000000004000000",
            "010000000000000000000000000000000200",
            "43dd0163cdb48f9fe3212bf61b201976067f342bb879ad976d8242acc188ab59cabfe307",
        ),
        (
            "0100000000000000000000000000000000000000000000000000000000000000",
            "030000000000000000000000",
            "030000000000000000000000000000000400",
            "0100000000000000000000000000000002000000",
            "462401724b5ce6588d5a54aae5375513a075cfcdf5042112aa29685c912fc2056543",
        ),
        (
            "e66021d5eb8e4f4066d4adb9c33560e4f46e44bb3da0015c94f7088736864200",
            "e0eaf5284d884a0e77d31646",
            "",
            "",
            "169fbb2fbf389a995f6390af22228a62",
        ),
        (
            "bae8e37fc83441b16034566b7a806c46bb91c3c5aedb64a6c590bc84d1a5e269",
            "e4b47801afc0577e34699b9e",
            "671fdd",
            "4fbdc66f14",
            "0eaccb93da9bb81333aee0c785b240d319719d",
        ),
        (
            "6545fc880c94a95198874296d5cc1fd161320b6920ce07787f86743b275d1ab3",
            "2f6d1f0434d8848c1177441f",
            "195495860f04",
            "6787f3ea22c127aaf195",
            "a254dad4f3f96b62b84dc40c84636a5ec12020ec8c2c",
        ),
        (
            "d1894728b3fed1473c528b8426a582995929a1499e9ad8780c8d63d0ab4149c0",
            "9f572c614b4745914474e7c7",
            "c9882e5386fd9f92ec",
            "489c8fde2be2cf97e74e932d4ed87d",
            "0df9e308678244c44bc0fd3dc6628dfe55ebb0b9fb2295c8c2",
        ),
        (
            "a44102952ef94b02b805249bac80e6f61455bfac8308a2d40d8c845117808235",
            "5c9e940fea2f582950a70d5a",
            "1db2316fd568378da107b52b",
            "0da55210cc1c1b0abde3b2f204d1e9f8b06bc47f",
            "8dbeb9f7255bf5769dd56692404099c2587f64979f21826706d497d5",
        ),
        (
            "9745b3d1ae06556fb6aa7890bebc18fe6b3db4da3d57aa94842b9803a96e07fb",
            "6de71860f762ebfbd08284e4",
            "21702de0de18baa9c9596291b08466",
            "f37de21c7ff901cfe8a69615a93fdf7a98cad481796245709f",
            "793576dfa5c0f88729a7ed3c2f1bffb3080d28f6ebb5d3648ce97bd5ba67fd",
        ),
        (
            "b18853f68d833640e42a3c02c25b64869e146d7b233987bddfc240871d7576f7",
            "028ec6eb5ea7e298342a94d4",
            "b202b370ef9768ec6561c4fe6b7e7296fa85",
            "9c2159058b1f0fe91433a5bdc20e214eab7fecef4454a10ef0657df21ac7",
            "857e16a64915a787637687db4a9519635cdd454fc2a154fea91f8363a39fec7d0a49",
        ),
        (
            "3c535de192eaed3822a2fbbe2ca9dfc88255e14a661b8aa82cc54236093bbc23",
            "688089e55540db1872504e1c",
            "ced532ce4159b035277d4dfbb7db62968b13cd4eec",
            "734320ccc9d9bbbb19cb81b2af4ecbc3e72834321f7aa0f70b7282b4f33df23f167541",
            "626660c26ea6612fb17ad91e8e767639edd6c9faee9d6c7029675b89eaf4ba1ded1a286594",
        ),
    ];

    #[test]
    fn rfc8452_vectors_seal_and_open() {
        for (i, (key, nonce, plain, aad, sealed)) in RFC8452.iter().enumerate() {
            let key: [u8; 32] = unhex(key).try_into().unwrap();
            let nonce: [u8; 12] = unhex(nonce).try_into().unwrap();
            let (plain, aad, sealed) = (unhex(plain), unhex(aad), unhex(sealed));
            let c = GcmSiv::new(&key);
            let mut buf = plain.clone();
            let tag = c.seal(&nonce, &aad, &mut buf).unwrap();
            buf.extend_from_slice(&tag);
            assert_eq!(buf, sealed, "vector {i}: seal");
            assert_eq!(
                c.open(&nonce, &aad, &mut buf).unwrap(),
                &plain[..],
                "vector {i}: open"
            );
            let mut flipped = sealed.clone();
            flipped[0] ^= 0x80;
            assert!(
                c.open(&nonce, &aad, &mut flipped).is_none(),
                "vector {i}: a flip"
            );
            assert!(flipped.iter().all(|&b| b == 0), "vector {i}: zeroed");
            // Opening into another buffer: the same plaintext, the input untouched; a flip
            // refused with the output zeroed.
            let mut out = vec![0xAA; plain.len()];
            assert!(
                c.open_into(&nonce, &aad, &sealed, &mut out),
                "vector {i}: into"
            );
            assert_eq!(out, plain, "vector {i}: into");
            let mut flipped = sealed.clone();
            flipped[sealed.len() - 1] ^= 1;
            let mut out = vec![0xAA; plain.len()];
            assert!(
                !c.open_into(&nonce, &aad, &flipped, &mut out),
                "vector {i}: flip into"
            );
            assert!(out.iter().all(|&b| b == 0), "vector {i}: into zeroed");
            // An output of the wrong length is refused, zeroed.
            let mut long = vec![0xAA; plain.len() + 1];
            assert!(!c.open_into(&nonce, &aad, &sealed, &mut long));
            assert!(long.iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn short_input_does_not_open() {
        let c = GcmSiv::new(&[1; 32]);
        for n in 0..TAG {
            assert!(c.open(&[0; 12], b"", &mut vec![0u8; n]).is_none());
        }
    }

    proptest! {
        /// The cipher in use gives RustCrypto's bytes, and each opens the other's;
        /// any one flipped bit of nonce, associated data or sealed bytes is refused.
        #[test]
        fn same_bytes_as_rustcrypto(
            key in any::<[u8; 32]>(),
            nonce in any::<[u8; 12]>(),
            aad in proptest::collection::vec(any::<u8>(), 0..64),
            plain in proptest::collection::vec(any::<u8>(), 0..5000),
            flip in any::<usize>(),
        ) {
            let c = GcmSiv::new(&key);
            let rc = Aes256GcmSiv::new_from_slice(&key).unwrap();
            let mut ours = plain.clone();
            let tag = c.seal(&nonce, &aad, &mut ours).unwrap();
            ours.extend_from_slice(&tag);
            let mut theirs = plain.clone();
            let tag = seal_rustcrypto(&rc, &nonce, &aad, &mut theirs).unwrap();
            theirs.extend_from_slice(&tag);
            prop_assert_eq!(&ours, &theirs);

            let mut a = ours.clone();
            prop_assert!(open_rustcrypto(&rc, &nonce, &aad, &mut a));
            prop_assert_eq!(&a[..plain.len()], &plain[..]);
            let mut b = theirs.clone();
            prop_assert_eq!(c.open(&nonce, &aad, &mut b).map(|p| p.to_vec()), Some(plain.clone()));

            let bits = (12 + aad.len() + ours.len()) * 8;
            let bit = flip % bits;
            let (mut n2, mut aad2, mut s2) = (nonce, aad.clone(), ours.clone());
            let byte = bit / 8;
            if byte < 12 {
                n2[byte] ^= 1 << (bit % 8);
            } else if byte < 12 + aad.len() {
                aad2[byte - 12] ^= 1 << (bit % 8);
            } else {
                s2[byte - 12 - aad.len()] ^= 1 << (bit % 8);
            }
            let mut s3 = s2.clone();
            let mut into = vec![0xAA; plain.len()];
            prop_assert!(c.open_into(&nonce, &aad, &theirs, &mut into));
            prop_assert_eq!(&into, &plain);
            prop_assert!(!c.open_into(&n2, &aad2, &s2, &mut into));
            prop_assert!(into.iter().all(|&b| b == 0));
            prop_assert!(c.open(&n2, &aad2, &mut s2).is_none());
            prop_assert!(!open_rustcrypto(&rc, &n2, &aad2, &mut s3));
        }
    }
}

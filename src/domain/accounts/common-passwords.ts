/**
 * Passwords too common to accept (NIST SP 800-63B 5.1.1.2: compare against "commonly-used, expected, or
 * compromised" values). The head of the UK NCSC's list of the 100,000 passwords most seen in breaches (from Have I
 * Been Pwned), in its order, lower-cased, four characters or more, slurs left out; then the entries of twelve
 * characters or more (the policy's minimum) from further down its first few thousand; then the service's own name.
 * The policy also refuses one of these followed by digits or symbols only (`password1234`), which is how most of the
 * short ones come back at twelve characters. Whitespace separates entries; none contains any.
 */
const LIST = `
123456 123456789 qwerty password 111111 12345678 abc123 1234567 password1 12345 1234567890 123123 000000 iloveyou
1234 1q2w3e4r5t qwertyuiop monkey dragon 123456a 654321 123321 666666 1qaz2wsx myspace1 121212 homelesspa 123qwe
a123456 123abc 1q2w3e4r qwe123 7777777 qwerty123 target123 tinkle 987654321 qwerty1 222222 zxcvbnm 1g2w3e4r gwerty
zag12wsx gwerty123 555555 fuckyou 112233 asdfghjkl 1q2w3e 123123123 qazwsx computer princess 12345a ashley 159753
michael football sunshine 1234qwer iloveyou1 aaaaaa fuckyou1 789456123 daniel 777777 princess1 123654 11111 asdfgh
999999 11111111 passer2009 888888 love abcd1234 shadow football1 love123 superman jordan23 jessica monkey1 12qwaszx
a12345 baseball 123456789a killer asdf samsung master azerty charlie asd123 soccer fqrg7cs493 88888888 jordan
michael1 jesus1 linkedin babygirl1 789456 blink182 thomas qwer1234 333333 liverpool michelle nicole qwert j38ifubn
131313 asdasd 987654 lovely q1w2e3r4 0123456789 gfhjkm andrew hello1 joshua status justin anthony angel1 iloveyou2
1111111 zxcvbn hello 1111 jennifer hunter naruto bitch1 welcome 159357 101010 tigger 147258369 babygirl jessica1
parola 5201314 robert fuckyou2 696969 102030 0987654321 loveme 123456q apple pokemon mother money1 secret anthony1
purple q1w2e3r4t5y6 baseball1 qazwsxedc 1111111111 buster matthew andrea soccer1 basketball hannah freedom golfer
chelsea passw0rd george trustno1 friends william iloveu amanda number1 chocolate qwerty12 summer flower charlie1
maggie pakistan samantha asdf1234 letmein asshole1 superman1 marina 147258 batman fuk19600 butterfly 010203 qweqwe
29rsavoy forever mustang sunshine1 ashley1 internet london harley alexander xbox360 00000000 12341234 q1w2e3 pepper
family loveyou 50cent joseph whatever jasmine orange user junior cookie martin qweasdzxc 212121 1qazxsw2 password12
google password2 111222 lol123 hello123 jordan1 shadow1 patrick 3rjs1la7qe ginger nicole1 mylove arsenal 12344321
abcdef love12 232323 vqsablpzla taylor myspace brandon angel 12345q brandon1 chris1 diamond snoopy asshole qweasd
starwars matrix mickey school jonathan melissa eminem 1234561 cjmasterinf lovers 1234567891 nikita richard 1342
yellow 12345qwert oliver q1w2e3r4t5 cheese a123456789 christian 290966 wall.e 12345678910 12413 sophie tudelft
diosesfiel dpbk1234 pe#5gz29ptzmse bailey u38fa39 mercedes victoria 147852

1qaz2wsx3edc 123qweasdzxc qwerty123456 sojdlg123aljg startfinding 111222tianya 1q2w3e4r5t6y 123456654321
megaparol12345 polniypizdec0211 telechargement 123456qwerty n8zgt5p0shw= yfdbufnjh10305070 123456123456
qazwsxedcrfv 123456789123 112233445566 1q2w3e4r5t6y7u8i9o0p 123456789987654321 polniypizdec110211 maprchem56458
qwertyqwerty qweasdzxc123 qwertyuiop[] 123456789123456789 5532361cnjqrf qazwsxedc123 qwerasdfzxcv qwertyuiop123
1q2w3e4r5t6y7u password1234 professional international leavemealone motherfucker zxcasdqwe123 123qwe123qwe
ichliebedich 1qazxsw23edc jamesbond007 123456789qwe projectsadminx 123456789abc ihatethisgame finalfantasy
administrator sonyericsson asdfghjkl123 jundian2011xr

computegateway compute-gateway
`;

/** Every entry, lower-cased. */
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set(LIST.split(/\s+/).filter((entry) => entry !== ''));
